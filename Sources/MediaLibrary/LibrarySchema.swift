import GRDB

/// The tables of the library database.
///
/// `files` has one row per indexed file (song or SoundFont, refused ones included, with why);
/// `songs` and `soundfonts` the facts of each readable file; `song_values` the facts a song has any
/// number of (instruments, families, programs, channels, time and key signatures, markers);
/// `presets` each SoundFont's presets; `roots` the folders and files added, which `update` rescans.
enum LibrarySchema {
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            PRAGMA application_id = \(MediaLibrary.applicationID);
            PRAGMA user_version = \(MediaLibrary.schemaVersion);
            CREATE TABLE roots (path TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE files (
                id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, name TEXT NOT NULL, kind TEXT NOT NULL,
                size INTEGER NOT NULL, mtime INTEGER NOT NULL, hash TEXT NOT NULL,
                status TEXT NOT NULL, problem TEXT);
            CREATE TABLE songs (
                file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                title TEXT, copyright TEXT, lyrics INTEGER NOT NULL, texts INTEGER NOT NULL,
                format INTEGER NOT NULL, tracks INTEGER NOT NULL, ppq INTEGER, fps INTEGER, ticks_per_frame INTEGER,
                duration REAL NOT NULL, bars REAL NOT NULL, ticks INTEGER NOT NULL,
                tempo REAL, tempo_min REAL, tempo_max REAL, tempo_changes INTEGER,
                channels INTEGER NOT NULL, drums INTEGER NOT NULL, notes INTEGER NOT NULL,
                lowest INTEGER, highest INTEGER, polyphony INTEGER NOT NULL, markers INTEGER NOT NULL,
                repairs INTEGER NOT NULL);
            CREATE TABLE song_values (
                file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                field TEXT NOT NULL, value TEXT NOT NULL, number REAL,
                UNIQUE (file_id, field, value));
            CREATE INDEX song_values_by_field ON song_values (field, value);
            CREATE TABLE soundfonts (
                file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                name TEXT, version TEXT, format TEXT NOT NULL, author TEXT, copyright TEXT, comment TEXT,
                presets INTEGER NOT NULL, instruments INTEGER NOT NULL, zones INTEGER NOT NULL,
                samples INTEGER NOT NULL, sample_bytes INTEGER NOT NULL, problems TEXT);
            CREATE TABLE presets (
                file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                bank INTEGER NOT NULL, program INTEGER NOT NULL, name TEXT NOT NULL, zones INTEGER NOT NULL);
            CREATE INDEX presets_by_file ON presets (file_id);
            """)
    }
}
