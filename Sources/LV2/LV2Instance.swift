import Atomics
internal import CLilv
import Foundation

/// One running instance of an LV2 plugin with the host features seqplay provides (URID map and unmap,
/// options with block lengths and sample rate, bounded block length, a worker, log, presets through
/// state). Used by the effect and instrument nodes; no C pointer leaves it.
///
/// Control inputs are set from any thread (`setValue`): stored in atomics and copied into the plugin's
/// port at the next `run`. `run`, `connectAudio`, `addMIDIEvent` and `reset` are for the render thread
/// and allocate nothing on seqplay's side. The worker runs as `workerMode` says: synchronously (a plugin's
/// scheduled work is done when it asks and its responses are delivered right after its `run`, so offline
/// renders repeat exactly) or on a non-real-time thread of its own (real-time playback).
package final class LV2Instance {
    package let info: LV2PluginInfo
    private let instance: UnsafeMutablePointer<LilvInstance>
    private let storage: Storage
    private let controlTargets: ContiguousArray<ManagedAtomic<UInt32>>
    private let controlInputIndices: [Int]
    private let atomInputIndices: [Int]
    private let atomOutputIndices: [Int]
    /// The port indices of the audio inputs and outputs, in port order.
    package let audioInputPorts: [Int]
    package let audioOutputPorts: [Int]
    private let midiPort: Int?
    /// The index of the control output reporting latency.
    private let latencyPort: Int?
    private let worker: UnsafePointer<LV2_Worker_Interface>?
    private var responseLength = 0
    private var midiLength = 0
    private var midiLastFrame: Int64 = 0
    private var isActive = false
    private var workerThread: LV2WorkerThread?
    private let workerOnThread = ManagedAtomic(false)
    private let responseScratch: UnsafeMutableRawPointer

    /// Where the plugin's scheduled work runs (see `LV2WorkerMode`). Set it before rendering starts.
    package var workerMode: LV2WorkerMode {
        get { workerOnThread.load(ordering: .relaxed) ? .thread : .synchronous }
        set {
            if newValue == .thread, workerThread == nil, let worker, let work = worker.pointee.work {
                workerThread = LV2WorkerThread(work: work, handle: instance.pointee.lv2_handle, name: info.name)
            }
            workerOnThread.store(newValue == .thread && workerThread != nil, ordering: .relaxed)
        }
    }

    static let atomCapacity = 65_536
    static let responseCapacity = 65_536

    /// Everything the features and ports point at, freed with the instance.
    private final class Storage {
        var strings: [UnsafeMutablePointer<CChar>] = []
        var raw: [UnsafeMutableRawPointer] = []
        func allocate(_ bytes: Int) -> UnsafeMutableRawPointer {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 8), alignment: 16)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes, 8))
            raw.append(pointer)
            return pointer
        }
        func string(_ text: String) -> UnsafeMutablePointer<CChar> {
            let copy = strdup(text)!
            strings.append(copy)
            return copy
        }
        deinit {
            for pointer in raw { pointer.deallocate() }
            for string in strings { free(string) }
        }
    }

    private let controlValues: UnsafeMutablePointer<Float>
    private let atomBuffers: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let responses: UnsafeMutableRawPointer
    private let sequenceType: UInt32
    private let chunkType: UInt32
    private let midiType: UInt32

    /// Instantiates `settings.plugin` at `sampleRate` for blocks of at most `maximumFrameCount` frames,
    /// applies its preset and values, and activates it.
    package init(settings: LV2PluginSettings, sampleRate: Double, maximumFrameCount: Int) throws(LV2Error) {
        let info = settings.plugin
        self.info = info
        if let missing = info.missingFeatures.first { throw .unsupportedFeature(uri: info.uri, feature: missing) }
        let storage = Storage()
        self.storage = storage
        let map = LV2URIDMap.shared
        sequenceType = map.map(LV2URI.atomSequence)
        chunkType = map.map(LV2URI.atomChunk)
        midiType = map.map(LV2URI.midiEvent)

        // Features.
        let mapFeature = storage.allocate(MemoryLayout<LV2_URID_Map>.stride).bindMemory(to: LV2_URID_Map.self, capacity: 1)
        mapFeature.pointee = LV2_URID_Map(handle: nil, map: { _, uri in
            guard let uri else { return 0 }
            return LV2URIDMap.shared.map(String(cString: uri))
        })
        let unmapFeature = storage.allocate(MemoryLayout<LV2_URID_Unmap>.stride).bindMemory(to: LV2_URID_Unmap.self, capacity: 1)
        unmapFeature.pointee = LV2_URID_Unmap(handle: nil, unmap: { _, id in LV2URIDMap.shared.unmap(id) })

        let optionValues = storage.allocate(5 * 4)
        optionValues.storeBytes(of: Int32(1), toByteOffset: 0, as: Int32.self)
        optionValues.storeBytes(of: Int32(maximumFrameCount), toByteOffset: 4, as: Int32.self)
        optionValues.storeBytes(of: Int32(maximumFrameCount), toByteOffset: 8, as: Int32.self)
        optionValues.storeBytes(of: Int32(Self.atomCapacity), toByteOffset: 12, as: Int32.self)
        optionValues.storeBytes(of: Float(sampleRate), toByteOffset: 16, as: Float.self)
        let intType = map.map(LV2URI.atomInt), floatType = map.map(LV2URI.atomFloat)
        let optionEntries: [(String, UInt32, Int)] = [
            (LV2URI.minBlockLength, intType, 0), (LV2URI.maxBlockLength, intType, 4),
            (LV2URI.nominalBlockLength, intType, 8), (LV2URI.sequenceSize, intType, 12), (LV2URI.sampleRate, floatType, 16),
        ]
        let options = storage.allocate(MemoryLayout<LV2_Options_Option>.stride * (optionEntries.count + 1))
            .bindMemory(to: LV2_Options_Option.self, capacity: optionEntries.count + 1)
        for (i, entry) in optionEntries.enumerated() {
            options[i] = LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: map.map(entry.0), size: 4,
                                            type: entry.1, value: UnsafeRawPointer(optionValues + entry.2))
        }
        options[optionEntries.count] = LV2_Options_Option(context: LV2_OPTIONS_INSTANCE, subject: 0, key: 0, size: 0, type: 0, value: nil)

        let logLevels = storage.allocate(3 * 4).bindMemory(to: UInt32.self, capacity: 3)
        logLevels[0] = map.map(LV2URI.logError)
        logLevels[1] = map.map(LV2URI.logWarning)
        logLevels[2] = map.map(LV2URI.logNote)
        let logTarget = storage.allocate(MemoryLayout<seqplay_lv2_log_target>.stride)
            .bindMemory(to: seqplay_lv2_log_target.self, capacity: 1)
        logTarget.pointee = seqplay_lv2_log_target(post: { context, type, text in
            guard let text else { return }
            let levels = context?.assumingMemoryBound(to: UInt32.self)
            var level: Int32 = 3
            if let levels {
                for i in 0..<3 where levels[i] == type { level = Int32(i) }
            }
            LV2Log.post(level: level, text: text)
        }, context: UnsafeMutableRawPointer(logLevels))
        let logFeature = storage.allocate(MemoryLayout<LV2_Log_Log>.stride).bindMemory(to: LV2_Log_Log.self, capacity: 1)
        seqplay_lv2_log_init(logFeature, logTarget)

        let schedule = storage.allocate(MemoryLayout<LV2_Worker_Schedule>.stride)
            .bindMemory(to: LV2_Worker_Schedule.self, capacity: 1)

        let featureData: [(String, UnsafeMutableRawPointer?)] = [
            (LV2URI.uridMap, UnsafeMutableRawPointer(mapFeature)), (LV2URI.uridUnmap, UnsafeMutableRawPointer(unmapFeature)),
            (LV2URI.options, UnsafeMutableRawPointer(options)), (LV2URI.boundedBlockLength, nil),
            (LV2URI.workerSchedule, UnsafeMutableRawPointer(schedule)), (LV2URI.log, UnsafeMutableRawPointer(logFeature)),
            (LV2URI.isLive, nil),
        ]
        let features = storage.allocate(MemoryLayout<LV2_Feature>.stride * featureData.count)
            .bindMemory(to: LV2_Feature.self, capacity: featureData.count)
        let featureList = storage.allocate(MemoryLayout<UnsafePointer<LV2_Feature>?>.stride * (featureData.count + 1))
            .bindMemory(to: UnsafePointer<LV2_Feature>?.self, capacity: featureData.count + 1)
        for (i, entry) in featureData.enumerated() {
            features[i] = LV2_Feature(URI: storage.string(entry.0), data: entry.1)
            featureList[i] = UnsafePointer(features + i)
        }
        featureList[featureData.count] = nil

        // Ports.
        let ports = info.ports
        controlValues = storage.allocate(4 * ports.count).bindMemory(to: Float.self, capacity: max(ports.count, 1))
        atomBuffers = storage.allocate(MemoryLayout<UnsafeMutableRawPointer?>.stride * ports.count)
            .bindMemory(to: UnsafeMutableRawPointer?.self, capacity: max(ports.count, 1))
        responses = storage.allocate(Self.responseCapacity)
        responseScratch = storage.allocate(LV2WorkerThread.messageCapacity)
        controlTargets = ContiguousArray(ports.map { ManagedAtomic(($0.defaultValue ?? $0.minimum ?? 0).bitPattern) })
        controlInputIndices = ports.filter { $0.type == .control && $0.direction == .input }.map(\.index)
        atomInputIndices = ports.filter { $0.type == .atom && $0.direction == .input }.map(\.index)
        atomOutputIndices = ports.filter { $0.type == .atom && $0.direction == .output }.map(\.index)
        audioInputPorts = ports.filter { $0.type == .audio && $0.direction == .input }.map(\.index)
        audioOutputPorts = ports.filter { $0.type == .audio && $0.direction == .output }.map(\.index)
        midiPort = ports.first { $0.type == .atom && $0.direction == .input && $0.supportsMIDI }?.index
        latencyPort = info.latencyPortIndex.flatMap { ports.indices.contains($0) && ports[$0].type == .control ? $0 : nil }

        let world = LV2World.shared
        let created: UnsafeMutablePointer<LilvInstance>? = world.lock.withLock {
            guard let plugin = world.lilvPlugin(uri: info.uri) else { return nil }
            return lilv_plugin_instantiate(plugin, sampleRate, featureList)
        }
        guard let created else { throw .instantiateFailed(uri: info.uri) }
        instance = created
        worker = lilv_instance_get_extension_data(created, LV2URI.workerInterface)?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        schedule.pointee = LV2_Worker_Schedule(handle: Unmanaged.passUnretained(self).toOpaque(), schedule_work: { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<LV2Instance>.fromOpaque(handle).takeUnretainedValue().scheduleWork(size: size, data: data)
        })

        let cvBuffer = storage.allocate(4 * max(maximumFrameCount, 1))
        for port in ports {
            let index = UInt32(port.index)
            switch port.type {
            case .control:
                controlValues[port.index] = Float(bitPattern: controlTargets[port.index].load(ordering: .relaxed))
                lilv_instance_connect_port(created, index, controlValues + port.index)
            case .atom:
                let buffer = storage.allocate(Self.atomCapacity)
                atomBuffers[port.index] = buffer
                lilv_instance_connect_port(created, index, buffer)
            case .cv:
                lilv_instance_connect_port(created, index, cvBuffer)
            case .audio, .other:
                lilv_instance_connect_port(created, index, nil)
            }
        }
        resetAtomBuffers()

        // The plugin's default state, then the preset, then the values given.
        let stateFeatures = UnsafePointer(featureList)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let restore: (_ uri: String) -> Void = { uri in
            world.lock.withLock {
                let node = lilv_new_uri(world.world, uri)
                defer { lilv_node_free(node) }
                guard let state = lilv_state_new_from_world(world.world, mapFeature, node) else { return }
                lilv_state_restore(state, created, { symbol, userData, value, size, type in
                    guard let symbol, let userData, let value else { return }
                    Unmanaged<LV2Instance>.fromOpaque(userData).takeUnretainedValue()
                        .restorePortValue(symbol: String(cString: symbol), value: value, size: size, type: type)
                }, context, 0, stateFeatures)
                lilv_state_free(state)
            }
        }
        if (info.requiredFeatures + info.optionalFeatures).contains(LV2URI.loadDefaultState) { restore(info.uri) }
        if let preset = settings.preset {
            let uri = world.lock.withLock { world.lilvPlugin(uri: info.uri).flatMap { plugin in
                world.presets(of: plugin).first { $0.label == preset || $0.uri == preset }?.uri } }
            if let uri { restore(uri) }
        }
        for control in settings.values { setValue(control.value, forSymbol: control.symbol) }
        activate()
        // Work the default state or preset scheduled while restoring (a file to load) is in place before the
        // first run, so the first block already sounds as the preset says.
        deliverResponses(endingRun: false)
    }

    deinit {
        workerThread?.stop()
        if isActive { lilv_instance_deactivate(instance) }
        lilv_instance_free(instance)
    }

    private func activate() {
        for index in controlInputIndices { controlValues[index] = Float(bitPattern: controlTargets[index].load(ordering: .relaxed)) }
        lilv_instance_activate(instance)
        isActive = true
    }

    /// Deactivates and activates the plugin (it forgets its tails and voices). Not on the render thread.
    package func reset() {
        if isActive { lilv_instance_deactivate(instance) }
        resetAtomBuffers()
        activate()
    }

    private func restorePortValue(symbol: String, value: UnsafeRawPointer, size: UInt32, type: UInt32) {
        let map = LV2URIDMap.shared
        let number: Float
        switch type {
        case map.map(LV2URI.atomFloat) where size == 4: number = value.loadUnaligned(as: Float.self)
        case map.map(LV2URI.atomDouble) where size == 8: number = Float(value.loadUnaligned(as: Double.self))
        case map.map(LV2URI.atomInt) where size == 4, map.map(LV2URI.atomBool) where size == 4:
            number = Float(value.loadUnaligned(as: Int32.self))
        default: return
        }
        setValue(number, forSymbol: symbol)
    }

    /// Sets control input `symbol` (ignored when the plugin has none). Any thread; lock-free.
    package func setValue(_ value: Float, forSymbol symbol: String) {
        guard let port = info.ports.first(where: { $0.symbol == symbol && $0.type == .control && $0.direction == .input })
        else { return }
        controlTargets[port.index].store(value.bitPattern, ordering: .relaxed)
    }

    /// The value control port `symbol` was last set to (an input) or reported (an output, after a run).
    package func value(forSymbol symbol: String) -> Float? {
        guard let port = info.ports.first(where: { $0.symbol == symbol && $0.type == .control }) else { return nil }
        return port.direction == .input ? Float(bitPattern: controlTargets[port.index].load(ordering: .relaxed))
            : controlValues[port.index]
    }

    /// The latency the plugin reported at its last run, in frames (0 without a latency port). A plain read of
    /// the port's float: real-time safe.
    package var reportedLatency: Int {
        guard let index = latencyPort else { return 0 }
        let value = controlValues[index]
        return value.isFinite && value > 0 ? Int(value.rounded()) : 0
    }

    /// Connects audio input `number` (0-based among the audio inputs) to `buffer` for the next runs.
    package func connectAudioInput(_ number: Int, to buffer: UnsafePointer<Float>) {
        lilv_instance_connect_port(instance, UInt32(audioInputPorts[number]), UnsafeMutableRawPointer(mutating: buffer))
    }

    /// Connects audio output `number` to `buffer` for the next runs.
    package func connectAudioOutput(_ number: Int, to buffer: UnsafeMutablePointer<Float>) {
        lilv_instance_connect_port(instance, UInt32(audioOutputPorts[number]), buffer)
    }

    /// Whether the plugin takes MIDI.
    package var takesMIDI: Bool { midiPort != nil }

    /// Adds a MIDI message at `frame` of the next run (frames in order; an earlier frame is moved to the
    /// last one added). Real-time safe; a message that does not fit the port's buffer is dropped.
    package func addMIDIEvent(frame: Int, bytes: UnsafeRawBufferPointer) {
        guard let midiPort, let buffer = atomBuffers[midiPort], !bytes.isEmpty else { return }
        let eventSize = 16 + ((bytes.count + 7) & ~7)
        let offset = 16 + midiLength
        guard offset + eventSize <= Self.atomCapacity else { return }
        let time = max(Int64(frame), midiLastFrame)
        midiLastFrame = time
        buffer.storeBytes(of: time, toByteOffset: offset, as: Int64.self)
        buffer.storeBytes(of: UInt32(bytes.count), toByteOffset: offset + 8, as: UInt32.self)
        buffer.storeBytes(of: midiType, toByteOffset: offset + 12, as: UInt32.self)
        (buffer + offset + 16).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        midiLength += eventSize
        buffer.storeBytes(of: UInt32(8 + midiLength), toByteOffset: 0, as: UInt32.self)
    }

    /// Runs the plugin for `frameCount` frames (at most the maximum given at init): takes up the control
    /// values set since the last run, delivers the MIDI added, then the worker's responses. Real-time safe
    /// on seqplay's side.
    package func run(frameCount: Int) {
        for i in controlInputIndices.indices {
            let index = controlInputIndices[i]
            controlValues[index] = Float(bitPattern: controlTargets[index].load(ordering: .relaxed))
        }
        for i in atomOutputIndices.indices {
            guard let buffer = atomBuffers[atomOutputIndices[i]] else { continue }
            buffer.storeBytes(of: UInt32(Self.atomCapacity - 8), toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: chunkType, toByteOffset: 4, as: UInt32.self)
        }
        lilv_instance_run(instance, UInt32(frameCount))
        deliverResponses(endingRun: true)
        for i in atomInputIndices.indices {
            guard let buffer = atomBuffers[atomInputIndices[i]] else { continue }
            buffer.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)
        }
        midiLength = 0
        midiLastFrame = 0
    }

    private func resetAtomBuffers() {
        for index in atomInputIndices {
            guard let buffer = atomBuffers[index] else { continue }
            buffer.storeBytes(of: UInt32(8), toByteOffset: 0, as: UInt32.self)
            buffer.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
            buffer.storeBytes(of: UInt32(0), toByteOffset: 8, as: UInt32.self)
            buffer.storeBytes(of: UInt32(0), toByteOffset: 12, as: UInt32.self)
        }
        midiLength = 0
        midiLastFrame = 0
    }

    // MARK: Worker

    private func scheduleWork(size: UInt32, data: UnsafeRawPointer?) -> LV2_Worker_Status {
        guard let worker, let work = worker.pointee.work else { return LV2_WORKER_ERR_UNKNOWN }
        if workerOnThread.load(ordering: .relaxed), let workerThread {
            return workerThread.requests.write(size: size, data: data) ? LV2_WORKER_SUCCESS : LV2_WORKER_ERR_NO_SPACE
        }
        let respond: LV2_Worker_Respond_Function = { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<LV2Instance>.fromOpaque(handle).takeUnretainedValue().queueResponse(size: size, data: data)
        }
        return work(instance.pointee.lv2_handle, respond, Unmanaged.passUnretained(self).toOpaque(), size, data)
    }

    private func queueResponse(size: UInt32, data: UnsafeRawPointer?) -> LV2_Worker_Status {
        let padded = (Int(size) + 7) & ~7
        guard responseLength + 8 + padded <= Self.responseCapacity else { return LV2_WORKER_ERR_NO_SPACE }
        responses.storeBytes(of: size, toByteOffset: responseLength, as: UInt32.self)
        if let data, size > 0 { (responses + responseLength + 8).copyMemory(from: data, byteCount: Int(size)) }
        responseLength += 8 + padded
        return LV2_WORKER_SUCCESS
    }

    /// Hands the plugin the responses of the work done since the last call; `endingRun`: after a run (the
    /// plugin's `end_run` is called then).
    private func deliverResponses(endingRun: Bool) {
        guard let worker else { return }
        if let workerThread {
            while let size = workerThread.responses.read(into: responseScratch, bufferSize: LV2WorkerThread.messageCapacity) {
                _ = worker.pointee.work_response?(instance.pointee.lv2_handle, size, responseScratch)
            }
        }
        var offset = 0
        while offset < responseLength {
            let size = responses.load(fromByteOffset: offset, as: UInt32.self)
            _ = worker.pointee.work_response?(instance.pointee.lv2_handle, size, responses + offset + 8)
            offset += 8 + ((Int(size) + 7) & ~7)
        }
        responseLength = 0
        if endingRun { _ = worker.pointee.end_run?(instance.pointee.lv2_handle) }
    }
}
