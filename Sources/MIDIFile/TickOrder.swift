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
        var heap = TrackMergeHeap(chosen.filter { !tracks[$0].events.isEmpty }.map { (tick: key(tracks[$0].events[0].tick), track: $0) })
        var next = [Int](repeating: 0, count: tracks.count)
        while let top = heap.top {
            let track = top.track, events = tracks[track].events
            let index = next[track]
            try body(track, index, events[index])
            next[track] = index + 1
            if index + 1 < events.count {
                heap.replaceTop(tick: key(events[index + 1].tick))
            } else {
                heap.removeTop()
            }
        }
    }
}

/// The k-way merge of tracks in playing order: a binary heap of the tracks that have events left,
/// keyed by their next event's tick, the least (tick, track) on top. Each track is in it once at most.
struct TrackMergeHeap {
    private var entries: [(tick: Int64, track: Int)]

    /// The heap of `entries` (each track's first tick, in any order).
    init(_ entries: [(tick: Int64, track: Int)]) {
        self.entries = entries
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The track whose next event comes first, and its tick; nil when no track has events left.
    var top: (tick: Int64, track: Int)? { entries.first }

    /// The top track's next event is at `tick`.
    mutating func replaceTop(tick: Int64) {
        entries[0].tick = tick
        siftDown(0)
    }

    /// The top track has no events left.
    mutating func removeTop() {
        entries[0] = entries[entries.count - 1]
        entries.removeLast()
        if !entries.isEmpty { siftDown(0) }
    }

    private func less(_ a: (tick: Int64, track: Int), _ b: (tick: Int64, track: Int)) -> Bool { (a.tick, a.track) < (b.tick, b.track) }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var least = parent
            if left < entries.count, less(entries[left], entries[least]) { least = left }
            if right < entries.count, less(entries[right], entries[least]) { least = right }
            if least == parent { return }
            entries.swapAt(parent, least)
            parent = least
        }
    }
}
