import CJACK
#if canImport(Glibc)
import Glibc
#endif

/// A client of a running JACK server (jackd2, or PipeWire through `pw-jack`): its ports, its
/// process callback and the transport. The server is never started on demand: without one,
/// `init` throws `.noServer`.
///
/// ```swift
/// let client = try JACKClient(name: "seqplay")
/// let left = try client.registerAudioPort(named: "out_L", direction: .output)
/// client.setProcessHandler(myHandler)        // fills left.buffer(frameCount:) each cycle
/// try client.activate()
/// try client.connect(left.name, to: "system:playback_1")
/// ```
///
/// Set every callback before `activate`. Methods other than those marked real-time safe must not
/// be called from a callback.
package final class JACKClient {
    let handle: OpaquePointer
    let callbacks = JACKCallbackContext()
    private var isActive = false
    private var isClosed = false
    /// The server this client is connected to (nil: the default one, or `$JACK_DEFAULT_SERVER`).
    package let serverName: String?
    /// The server's name as users know it: as given, else `$JACK_DEFAULT_SERVER`, else `default`.
    package var serverDisplayName: String {
        serverName ?? getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) } ?? "default"
    }
    /// The client's name: as asked, or as the server made it unique (`seqplay-01`).
    package let name: String

    /// Connects to the server as `name`. Throws `.noServer` when none is running.
    package init(name: String, serverName: String? = nil) throws(JACKError) {
        JACKClient.silenceLibraryMessages()
        var status = jack_status_t(rawValue: 0)
        let client: OpaquePointer? = serverName.map { server in
            seqplay_jack_client_open(name, server, &status)
        } ?? seqplay_jack_client_open(name, nil, &status)
        guard let client else {
            if status.rawValue & JackServerFailed.rawValue != 0 { throw .noServer(server: serverName) }
            throw .openFailed(server: serverName, status: status.rawValue)
        }
        handle = client
        self.serverName = serverName
        self.name = String(cString: jack_get_client_name(client))
    }

    deinit { close() }

    /// Deactivates and leaves the server. The ports go with it. Safe to call more than once.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        jack_client_close(handle)
    }

    /// The server's sample rate in Hz.
    package var sampleRate: Int { Int(jack_get_sample_rate(handle)) }
    /// Frames per process cycle (the server's block size; it can change while running).
    package var bufferSize: Int { Int(jack_get_buffer_size(handle)) }
    /// The server's DSP load in percent.
    package var cpuLoad: Float { jack_cpu_load(handle) }
    /// The server's frame counter at the start of the current cycle. Real-time safe.
    package var lastFrameTime: Int64 { Int64(jack_last_frame_time(handle)) }
    /// The server's frame counter now (estimated). Real-time safe.
    package var frameTime: Int64 { Int64(jack_frame_time(handle)) }
    /// Whether the server runs in real-time mode (jackd without --no-realtime).
    package var isRealtime: Bool { jack_is_realtime(handle) != 0 }

    /// Registers a mono audio port.
    package func registerAudioPort(named shortName: String, direction: JACKPortDirection) throws(JACKError) -> JACKAudioPort {
        JACKAudioPort(handle: try register(shortName, type: .audio, direction: direction), shortName: shortName, direction: direction)
    }

    /// Registers a MIDI port.
    package func registerMIDIPort(named shortName: String, direction: JACKPortDirection) throws(JACKError) -> JACKMIDIPort {
        JACKMIDIPort(handle: try register(shortName, type: .midi, direction: direction), shortName: shortName, direction: direction)
    }

    private func register(_ shortName: String, type: JACKPortType, direction: JACKPortDirection) throws(JACKError) -> OpaquePointer {
        guard let port = jack_port_register(handle, shortName, type.typeName, UInt(direction.flag.rawValue), 0) else {
            throw .portRegistrationFailed(name: shortName)
        }
        return port
    }

    /// Sets what runs every cycle (before `activate`).
    package func setProcessHandler(_ handler: any JACKProcessHandler) throws(JACKError) {
        callbacks.process = handler
        let result = jack_set_process_callback(handle, { frames, context in
            let callbacks = Unmanaged<JACKCallbackContext>.fromOpaque(context!).takeUnretainedValue()
            guard let handler = callbacks.process else { return 0 }
            return handler.process(frameCount: Int(frames)) ? 0 : 1
        }, context)
        try check(result, "jack_set_process_callback")
    }

    /// Runs `handler` with the reason when the server shuts down or drops this client. It runs on
    /// a thread of libjack's: it must not call JACK and should only raise a flag.
    package func onShutdown(_ handler: @escaping @Sendable (String) -> Void) {
        callbacks.shutdown = handler
        jack_on_info_shutdown(handle, { _, reason, context in
            let callbacks = Unmanaged<JACKCallbackContext>.fromOpaque(context!).takeUnretainedValue()
            callbacks.shutdown?(reason.map { String(cString: $0) } ?? "")
        }, context)
    }

    /// Runs `handler` when the server starts (true) or stops (false) freewheeling; on JACK's thread.
    package func onFreewheel(_ handler: @escaping @Sendable (Bool) -> Void) throws(JACKError) {
        callbacks.freewheel = handler
        let result = jack_set_freewheel_callback(handle, { starting, context in
            Unmanaged<JACKCallbackContext>.fromOpaque(context!).takeUnretainedValue().freewheel?(starting != 0)
        }, context)
        try check(result, "jack_set_freewheel_callback")
    }

    /// Runs `handler` with the new block size when the server changes it; on JACK's thread.
    package func onBufferSizeChange(_ handler: @escaping @Sendable (Int) -> Void) throws(JACKError) {
        callbacks.bufferSize = handler
        let result = jack_set_buffer_size_callback(handle, { frames, context in
            Unmanaged<JACKCallbackContext>.fromOpaque(context!).takeUnretainedValue().bufferSize?(Int(frames))
            return 0
        }, context)
        try check(result, "jack_set_buffer_size_callback")
    }

    /// Runs `handler` on every xrun the server reports; on JACK's thread.
    package func onXrun(_ handler: @escaping @Sendable () -> Void) throws(JACKError) {
        callbacks.xrun = handler
        let result = jack_set_xrun_callback(handle, { context in
            Unmanaged<JACKCallbackContext>.fromOpaque(context!).takeUnretainedValue().xrun?()
            return 0
        }, context)
        try check(result, "jack_set_xrun_callback")
    }

    /// Starts the process callback.
    package func activate() throws(JACKError) {
        try check(jack_activate(handle), "jack_activate")
        isActive = true
    }

    /// Stops the process callback (returns after the cycle in progress).
    package func deactivate() {
        guard isActive, !isClosed else { return }
        jack_deactivate(handle)
        isActive = false
    }

    /// Asks the server to freewheel (render as fast as it can) or stop freewheeling.
    package func setFreewheel(_ on: Bool) throws(JACKError) {
        try check(jack_set_freewheel(handle, on ? 1 : 0), "jack_set_freewheel")
    }

    /// Connects output port `source` to input port `destination` (full names). Already connected is fine.
    package func connect(_ source: String, to destination: String) throws(JACKError) {
        let result = jack_connect(handle, source, destination)
        guard result == 0 || result == EEXIST else {
            throw .connectionFailed(source: source, destination: destination, code: result)
        }
    }

    /// Disconnects two ports (full names).
    package func disconnect(_ source: String, from destination: String) throws(JACKError) {
        let result = jack_disconnect(handle, source, destination)
        guard result == 0 else { throw .connectionFailed(source: source, destination: destination, code: result) }
    }

    /// Full names of the server's ports whose name matches the extended regular expression
    /// `pattern` (all when nil), of `type`, with the given direction and physical-ness.
    package func ports(matching pattern: String? = nil, type: JACKPortType? = nil,
                      direction: JACKPortDirection? = nil, physicalOnly: Bool = false) -> [String] {
        var flags = UInt(direction?.flag.rawValue ?? 0)
        if physicalOnly { flags |= UInt(JackPortIsPhysical.rawValue) }
        return JACKPortList.take(jack_get_ports(handle, pattern, type?.typeName, flags))
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(callbacks).toOpaque() }

    private func check(_ result: Int32, _ call: String) throws(JACKError) {
        guard result == 0 else { throw .callFailed(call: call, code: result) }
    }

    /// libjack prints its errors ("Cannot connect to server socket…") to stderr; the wrapper turns
    /// them into typed errors instead.
    private static let silenced: Void = {
        jack_set_error_function { _ in }
        jack_set_info_function { _ in }
    }()

    private static func silenceLibraryMessages() { _ = silenced }
}
