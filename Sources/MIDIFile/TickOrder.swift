extension MusicSequence {
    /// Calls `body` with every event of the tracks in `selection` (all when nil) in playing order: by
    /// tick, then track, then order in the track (with `clampingNegativeTicks`, a tick below 0 counts
    /// as 0). The tracks are merged as they stand when each is in tick order, as a file's always is
    /// (no copy of the events is made); otherwise the events are sorted first.
    public func forEachEventInTickOrder(tracks selection: Set<Int>? = nil, clampingNegativeTicks: Bool = false,
                                        _ body: (_ track: Int, _ index: Int, _ event: TimedEvent) throws -> Void) rethrows {
        func key(_ tick: Int64) -> Int64 { clampingNegativeTicks ? max(0, tick) : tick }
        let chosen = tracks.indices.filter { selection?.contains($0) ?? true }
        let inOrder = chosen.allSatisfy { index in
            let events = tracks[index].events
            var last = Int64.min
            for event in events {
                let tick = key(event.tick)
                if tick < last { return false }
                last = tick
            }
            return true
        }
        guard inOrder else {
            var order: [(tick: Int64, track: Int, index: Int)] = []
            for track in chosen {
                for (index, event) in tracks[track].events.enumerated() { order.append((key(event.tick), track, index)) }
            }
            order.sort { ($0.tick, $0.track, $0.index) < ($1.tick, $1.track, $1.index) }
            for entry in order { try body(entry.track, entry.index, tracks[entry.track].events[entry.index]) }
            return
        }
        // A binary heap of the tracks' next events, least (tick, track) on top.
        var heap: [(tick: Int64, track: Int)] = []
        var next = [Int](repeating: 0, count: tracks.count)
        func less(_ a: (tick: Int64, track: Int), _ b: (tick: Int64, track: Int)) -> Bool { (a.tick, a.track) < (b.tick, b.track) }
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < heap.count, less(heap[left], heap[least]) { least = left }
                if right < heap.count, less(heap[right], heap[least]) { least = right }
                if least == parent { return }
                heap.swapAt(parent, least)
                parent = least
            }
        }
        for track in chosen where !tracks[track].events.isEmpty { heap.append((key(tracks[track].events[0].tick), track)) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        while let top = heap.first {
            let track = top.track, events = tracks[track].events
            let index = next[track]
            try body(track, index, events[index])
            next[track] = index + 1
            if index + 1 < events.count {
                heap[0] = (key(events[index + 1].tick), track)
            } else {
                heap[0] = heap[heap.count - 1]
                heap.removeLast()
            }
            if !heap.isEmpty { siftDown(0) }
        }
    }
}
