import Control
import Sampler
import FlyingFox
import Foundation
import MediaLibrary

/// The routes of `ControlHTTPServer`: each request checked (`HTTPAccess`, the `Origin` of a browser's
/// request), turned into a `ControlCommand` and answered as JSON. FlyingFox parses HTTP and WebSocket
/// frames; nothing here reads bytes off a socket.
struct ControlAPI: HTTPHandler {
    let control: SoundModuleControl
    let events: EventStream
    let access: HTTPAccess
    let libraryPath: String?
    let recordingDirectory: String?

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            guard Self.isSameOrigin(request) else {
                throw APIError(.forbidden, "requests from another site's page are refused")
            }
            guard access.allows(request) else { throw APIError.unauthorized }
            return try await route(request)
        } catch let error as APIError {
            return error.response
        }
    }

    /// A browser says which page sent a request in `Origin`; it must be this server's own (same host and
    /// port as `Host`). Requests without `Origin` (curl, scripts, same-origin GETs) pass.
    static func isSameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers[HTTPHeader("Origin")] else { return true }
        guard let host = request.headers[.host], let url = URL(string: origin), let originHost = url.host else { return false }
        let port = url.port.map { ":\($0)" } ?? ""
        let bracketed = originHost.contains(":") && !originHost.hasPrefix("[") ? "[\(originHost)]" : originHost
        return (bracketed + port).lowercased() == host.lowercased()
    }

    private func route(_ request: HTTPRequest) async throws(APIError) -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let method = request.method
        // The route's shape: the path, with the id of /api/channels/N and /api/fonts/N as ":id".
        let shape = parts.count == 3 && parts[0] == "api" && ["channels", "fonts"].contains(parts[1])
            ? "api/\(parts[1])/:id" : parts.joined(separator: "/")
        switch shape {
        case "":
            try allow(method, [.GET])
            return HTTPResponse(statusCode: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                                           HTTPHeader("Content-Security-Policy"): WebPage.contentSecurityPolicy],
                                body: WebPage.data)
        case "api/state":
            try allow(method, [.GET])
            return APIResponse.data(control.state.jsonData(), status: .ok)
        case "api/channels/:id":
            try allow(method, [.POST])
            guard let number = Int(parts[2]), (1...16).contains(number) else {
                throw .notFound("no channel \(JSONFields.quoted(parts[2])) (channels are 1-16)")
            }
            var fields = try await APIBody.object(request)
            try await changeChannel(number - 1, &fields)
            return stateResponse()
        case "api/fonts":
            if method == .GET { return APIResponse.encoded(["fonts": control.state.fonts]) }
            return try await post(request, allowing: [.GET, .POST]) { fields throws(APIError) in
                guard let path = try fields.string("path") else { throw .badRequest("path is needed: the SoundFont to load") }
                return .loadFont(path: path)
            }
        case "api/fonts/:id":
            try allow(method, [.DELETE])
            guard let id = Int(parts[2]), id > 0 else { throw .notFound("no SoundFont with id \(JSONFields.quoted(parts[2])) is loaded") }
            try await perform(.unloadFont(id: id))
            return stateResponse()
        case "api/panic", "api/reset":
            return try await post(request) { _ in parts[1] == "panic" ? .panic : .reset }
        case "api/gain":
            return try await post(request) { fields throws(APIError) in
                guard let gain = try fields.double("gain", in: -1e9...1e9) else { throw .badRequest("gain is needed") }
                return .gain(gain)
            }
        case "api/reverb":
            return try await post(request) { fields throws(APIError) in
                .reverb(SamplerSettings.Reverb(isEnabled: try fields.bool("enabled"), roomSize: try fields.double("roomSize", in: -1e9...1e9),
                                               damping: try fields.double("damping", in: -1e9...1e9),
                                               width: try fields.double("width", in: -1e9...1e9), level: try fields.double("level", in: -1e9...1e9)))
            }
        case "api/chorus":
            return try await post(request) { fields throws(APIError) in
                .chorus(SamplerSettings.Chorus(isEnabled: try fields.bool("enabled"), voices: try fields.int("voices", in: -1_000_000...1_000_000),
                                               level: try fields.double("level", in: -1e9...1e9), speed: try fields.double("speed", in: -1e9...1e9),
                                               depth: try fields.double("depth", in: -1e9...1e9)))
            }
        case "api/songs":
            try allow(method, [.GET])
            return APIResponse.json(["songs": songs()])
        case "api/song":
            return try await post(request) { fields throws(APIError) in
                guard let path = try fields.string("path") else { throw .badRequest("path is needed: the song to play") }
                return .playSong(path: path)
            }
        case "api/song/stop":
            return try await post(request) { _ in .stopSong }
        case "api/recording":
            // Not `post`: the recording's path (its directory made) only once the fields are known good.
            try allow(method, [.POST])
            var fields = try await APIBody.object(request)
            let name = try fields.string("name", maximumLength: 200)
            try fields.rejectUnknown()
            try await perform(.startRecording(path: try recordingPath(name)))
            return stateResponse()
        case "api/recording/stop":
            return try await post(request) { _ in .stopRecording }
        case "api/events":
            try allow(method, [.GET])
            do {
                return try await WebSocketHTTPHandler.webSocket(events).handleRequest(request)
            } catch {
                throw .badRequest("not a WebSocket handshake")
            }
        default:
            throw .notFound("nothing at \(JSONFields.quoted(request.path))")
        }
    }

    private func allow(_ method: HTTPMethod, _ allowed: [HTTPMethod]) throws(APIError) {
        guard allowed.contains(method) else {
            throw APIError(.methodNotAllowed, "\(method.rawValue) is not allowed here (use \(allowed.map(\.rawValue).joined(separator: " or ")))")
        }
    }

    /// A request (`allowed` methods; a POST) whose JSON object `command` reads into the command it
    /// asks for; a field it does not read refuses the request before anything is done. Answered
    /// with the state.
    private func post(_ request: HTTPRequest, allowing allowed: [HTTPMethod] = [.POST],
                      _ command: (inout JSONFields) throws(APIError) -> ControlCommand) async throws(APIError) -> HTTPResponse {
        try allow(request.method, allowed)
        var fields = try await APIBody.object(request)
        let command = try command(&fields)
        try fields.rejectUnknown()
        try await perform(command)
        return stateResponse()
    }

    private func stateResponse() -> HTTPResponse { APIResponse.data(control.state.jsonData(), status: .ok) }

    /// A channel's fields as commands, checked (all of them) before any is done: a font selects its
    /// preset (`bank`, `program`: given or the channel's); `program` and/or `bank` without a font pick
    /// the preset from the fonts loaded; then `volume`, `pan`, `mute`.
    private func changeChannel(_ channel: Int, _ fields: inout JSONFields) async throws(APIError) {
        let wide = -1_000_000...1_000_000
        let font = try fields.int("font", in: wide), bank = try fields.int("bank", in: wide), program = try fields.int("program", in: wide)
        let volume = try fields.int("volume", in: wide), pan = try fields.int("pan", in: wide), mute = try fields.bool("mute")
        try fields.rejectUnknown()
        if fields.isEmpty { throw .badRequest("nothing to change: give any of program, bank, font, volume, pan, mute") }
        let current = control.state.channel(channel) ?? ChannelState(channel: channel)
        var commands: [ControlCommand] = []
        if let font {
            commands.append(.select(channel: channel, font: font, bank: bank ?? current.bank, program: program ?? current.program))
        } else if bank != nil || program != nil {
            commands.append(.program(channel: channel, program: program ?? current.program, bank: bank ?? current.bank))
        }
        if let volume { commands.append(.volume(channel: channel, value: volume)) }
        if let pan { commands.append(.pan(channel: channel, value: pan)) }
        if let mute { commands.append(.mute(channel: channel, muted: mute)) }
        for command in commands { try await perform(command) }
    }

    /// Does `command` on a thread of its own (the control waits for the render thread to show it).
    private func perform(_ command: ControlCommand) async throws(APIError) {
        let control = self.control
        let result: Result<Void, ControlError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(ControlError) {
                    try control.perform(command)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        if case .failure(let error) = result {
            switch error {
            case .noSuchChannel, .noSuchFont: throw .notFound(error.description)
            default: throw .badRequest(error.description)
            }
        }
    }

    /// The media library's songs (path and title), at most 5000; none without a library.
    private func songs() -> [[String: String]] {
        MediaLibrary.listedSongs(at: libraryPath).map { row in
            var song = ["path": row.path]
            if let title = row.values["title"] as? String, !title.isEmpty { song["title"] = title }
            return song
        }
    }

    /// Where a recording started from the page goes: `name` (a plain file name, no directory) or
    /// `take-YYYYMMDD-HHMMSS.wav` in the recording directory.
    private func recordingPath(_ name: String?) throws(APIError) -> String {
        guard let recordingDirectory else { throw .badRequest("recording on request is not available here") }
        do {
            try FileManager.default.createDirectory(atPath: recordingDirectory, withIntermediateDirectories: true)
        } catch {
            throw .badRequest("cannot make \(recordingDirectory) for recordings: \(error.localizedDescription)")
        }
        if let name {
            guard !name.contains("/"), !name.hasPrefix("."), name.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) else {
                throw .badRequest("name must be a plain file name (no directory, not hidden)")
            }
            return (recordingDirectory as NSString).appendingPathComponent(name)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return (recordingDirectory as NSString).appendingPathComponent("take-\(formatter.string(from: Date())).wav")
    }
}
