import Foundation
import GRDB

/// A question to the library: which rows (`where`, in the query language), in what order, how many,
/// or grouped by a field with counts and totals (like MPMediaQuery's predicates and groupings).
public struct LibraryQuery: Sendable {
    public var condition: String?
    /// A field to order by, descending when `descending`.
    public var sort: String?
    public var descending = false
    public var limit: Int?

    /// `condition` is a query-language expression, `sort` is `FIELD` or `FIELD:desc`.
    public init(where condition: String? = nil, sort: String? = nil, limit: Int? = nil) {
        self.condition = condition
        self.limit = limit
        if let sort {
            let parts = sort.split(separator: ":", maxSplits: 1).map(String.init)
            self.sort = parts.first
            descending = parts.count > 1 && parts[1].lowercased().hasPrefix("desc")
        }
    }
}

/// One group of a grouped query: the field's value, how many rows have it and, for songs, their
/// total duration in seconds.
public struct LibraryGroup: Codable, Equatable, Sendable {
    public var value: String?
    public var count: Int
    public var totalDuration: Double?
}

/// One row a query found: the values of the fields it asked for, by field name (numbers as
/// `Double` or `Int64`, text as `String`, many-valued fields as `[String]`).
// Why unchecked: the values are only Double, Int64, String and [String] (all Sendable), held as Any for the caller.
public struct LibraryRow: @unchecked Sendable {
    public var values: [String: Any]
    public var path: String { values["path"] as? String ?? "" }
}

extension MediaLibrary {
    /// The tables song fields are read from (`f`: files, `s`: songs); refused files have no `songs` row.
    static let songTables = "files f LEFT JOIN songs s ON s.file_id = f.id"
    /// The tables preset fields are read from (`p`: presets, `sf`: their SoundFonts, `f`: files).
    static let presetTables = "presets p JOIN soundfonts sf ON sf.file_id = p.file_id JOIN files f ON f.id = p.file_id"

    /// The songs matching `query`: all their fields, many-valued ones as lists, unless `pathsOnly`.
    public func songs(_ query: LibraryQuery, pathsOnly: Bool = false) throws(MediaLibraryError) -> [LibraryRow] {
        let fields = LibraryField.songFields
        let (whereSQL, arguments) = try condition(query, fields: fields, base: "f.kind = 'song'", hidesRefused: true)
        let shown = pathsOnly ? fields.filter { $0.name == "path" } : fields.filter(\.isSingleValued)
        let order = try ordering(query, fields: fields)
        let sql = "SELECT f.id AS id, \(Self.selectList(shown)) FROM \(Self.songTables) WHERE \(whereSQL) ORDER BY \(order)\(Self.limitSQL(query))"
        return try access { db in
            var rows = try Self.fetch(db, sql, arguments, shown)
            let ids = rows.indices.map { rows[$0].values.removeValue(forKey: "id") as? Int64 ?? 0 }
            guard !pathsOnly, !rows.isEmpty else { return rows }
            var lists: [Int64: [String: [String]]] = [:]
            let valueRows = try Row.fetchAll(db, sql: """
                SELECT v.file_id, v.field, v.value FROM song_values v WHERE v.file_id IN
                (SELECT f.id FROM \(Self.songTables) WHERE \(whereSQL)) ORDER BY v.rowid
                """, arguments: StatementArguments(arguments))
            for row in valueRows { lists[row[0], default: [:]][row[1], default: []].append(row[2]) }
            for (index, id) in ids.enumerated() {
                for field in fields where !field.isSingleValued {
                    rows[index].values[field.name] = lists[id]?[field.name] ?? []
                }
            }
            return rows
        }
    }

    /// The SoundFont presets matching `query`.
    public func presets(_ query: LibraryQuery) throws(MediaLibraryError) -> [LibraryRow] {
        let fields = LibraryField.presetFields
        let (whereSQL, arguments) = try condition(query, fields: fields, base: "1", hidesRefused: false)
        let order = try ordering(query, fields: fields, fallback: "f.path, p.bank, p.program")
        let sql = "SELECT \(Self.selectList(fields)) FROM \(Self.presetTables) WHERE \(whereSQL) ORDER BY \(order)\(Self.limitSQL(query))"
        return try access { db in try Self.fetch(db, sql, arguments, fields) }
    }

    /// Songs matching `query` grouped by `field`: each value's song count and total duration,
    /// most songs first. A song counts once in each group of a many-valued field it has.
    public func songGroups(_ query: LibraryQuery, by fieldName: String) throws(MediaLibraryError) -> [LibraryGroup] {
        let compiler = QueryCompiler(fields: LibraryField.songFields)
        let field: LibraryField
        do { field = try compiler.field(named: fieldName, at: 1) } catch { throw .query(error) }
        let (whereSQL, arguments) = try condition(query, fields: LibraryField.songFields, base: "f.kind = 'song'", hidesRefused: true)
        let sql: String
        var allArguments = arguments
        switch field.storage {
        case .column(let column):
            sql = "SELECT \(column) AS value, count(*) AS count, sum(s.duration) AS total FROM \(Self.songTables) WHERE \(whereSQL) GROUP BY 1"
        case .values(let name):
            sql = """
                SELECT g.value AS value, count(*) AS count, sum(s.duration) AS total FROM \(Self.songTables)
                JOIN song_values g ON g.file_id = f.id AND g.field = ? WHERE \(whereSQL) GROUP BY g.value
                """
            allArguments.insert(name.databaseValue, at: 0)
        }
        return try access { db in
            try Row.fetchAll(db, sql: sql + " ORDER BY count DESC, value\(Self.limitSQL(query))", arguments: StatementArguments(allArguments)).map { row in
                let value = row["value"] as DatabaseValue
                let text: String? = switch value.storage {
                case .null: nil
                case .int64(let number): String(number)
                case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
                default: String.fromDatabaseValue(value)
                }
                return LibraryGroup(value: text, count: row["count"], totalDuration: row["total"])
            }
        }
    }

    private func condition(_ query: LibraryQuery, fields: [LibraryField], base: String,
                           hidesRefused: Bool) throws(MediaLibraryError) -> (String, [DatabaseValue]) {
        var sql = base
        var arguments: [DatabaseValue] = []
        var mentionsStatus = false
        if let text = query.condition, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            do {
                let expression = try QueryParser.parse(text, fields: fields.map(\.name))
                let fragment = try QueryCompiler(fields: fields).compile(expression)
                sql += " AND (\(fragment.sql))"
                arguments = fragment.arguments
                mentionsStatus = QueryCompiler.mentions(expression, field: "status")
            } catch {
                throw .query(error)
            }
        }
        if hidesRefused && !mentionsStatus { sql += " AND f.status != 'refused'" }
        return (sql, arguments)
    }

    private func ordering(_ query: LibraryQuery, fields: [LibraryField], fallback: String = "f.path") throws(MediaLibraryError) -> String {
        guard let name = query.sort else { return fallback }
        let compiler = QueryCompiler(fields: fields)
        let field: LibraryField
        do { field = try compiler.field(named: name, at: 1) } catch { throw .query(error) }
        guard case .column(let sql) = field.storage else {
            let single = fields.filter(\.isSingleValued).map(\.name)
            throw .query(QueryError(message: "'\(name)' has many values per song and cannot be sorted on", position: 1, fields: single))
        }
        return "\(sql) IS NULL, \(sql)\(field.kind == .text ? " COLLATE NOCASE" : "") \(query.descending ? "DESC" : "ASC"), \(fallback)"
    }

    private static func limitSQL(_ query: LibraryQuery) -> String {
        query.limit.map { " LIMIT \(max(0, $0))" } ?? ""
    }

    private static func selectList(_ fields: [LibraryField]) -> String {
        fields.compactMap { field in
            guard case .column(let sql) = field.storage else { return nil }
            return "\(sql) AS \"\(field.name)\""
        }.joined(separator: ", ")
    }

    private static func fetch(_ db: Database, _ sql: String, _ arguments: [DatabaseValue], _ fields: [LibraryField]) throws -> [LibraryRow] {
        try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
            var values: [String: Any] = [:]
            for (column, value) in row {
                switch value.storage {
                case .null: continue
                case .int64(let number):
                    let isFlag = fields.first { $0.name == column }?.kind == .flag
                    values[column] = isFlag ? (number != 0) as Any : number as Any
                case .double(let number): values[column] = number
                case .string(let text): values[column] = text
                case .blob: continue
                }
            }
            return LibraryRow(values: values)
        }
    }
}

extension MediaLibrary {
    /// The songs the library at `path` lists (by path, at most `limit`), read without writing; none
    /// when there is no library there or it cannot be read. What a live host offers and allows to play.
    public static func listedSongs(at path: String?, limit: Int = 5000) -> [LibraryRow] {
        guard let path, FileManager.default.fileExists(atPath: path),
              let library = try? MediaLibrary(path: path, create: false, writes: false),
              let rows = try? library.songs(LibraryQuery(sort: "path", limit: limit)) else { return [] }
        return rows
    }
}
