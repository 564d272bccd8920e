import Foundation
import SeqplaySupport
import Synchronization
import XCTest

/// The one thread life cycle of every service: a stop cuts a loop's pause short, a loop that ended
/// by itself is joined like a stopped one, and a stopped service starts again.
final class ServiceThreadTests: XCTestCase {
    func testAStopCutsThePauseShortAndJoinsTheThread() {
        let service = ServiceThread()
        let rounds = Counter()
        XCTAssertTrue(service.start(name: "test service") {
            while !service.waitForStop(nanoseconds: 60_000_000_000) { rounds.add() }
        })
        XCTAssertTrue(service.isRunning)
        usleep(50_000)
        let asked = Date()
        service.stop()
        XCTAssertLessThan(Date().timeIntervalSince(asked), 5, "the minute's pause was cut short")
        XCTAssertEqual(rounds.value, 0, "no round ran before the stop")
        XCTAssertFalse(service.isRunning)
        XCTAssertTrue(service.isStopRequested)
    }

    func testALoopThatEndsByItselfIsJoinedAndTheServiceStartsAgainAfterAStop() {
        let service = ServiceThread()
        let runs = Counter()
        service.start(name: "test service") { runs.add() }
        service.join()
        service.join()  // a second joiner returns too
        XCTAssertEqual(runs.value, 1)
        XCTAssertFalse(service.start(name: "test service") { runs.add() },
                       "not asked to stop: still the running service")
        service.stop()
        XCTAssertTrue(service.start(name: "test service") { runs.add() })
        service.stop()
        XCTAssertEqual(runs.value, 2)
    }

    func testAStopRequestEndsAWaitForATimeAndIsMadeOnce() {
        let request = StopRequest()
        let start = MonotonicClock.now()
        XCTAssertFalse(request.wait(until: start + 20_000_000), "nobody asked: the time came")
        XCTAssertGreaterThanOrEqual(MonotonicClock.now() - start, 20_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { request.request() }
        let asked = Date()
        XCTAssertTrue(request.wait(nanoseconds: 60_000_000_000))
        XCTAssertLessThan(Date().timeIntervalSince(asked), 5)
        XCTAssertTrue(request.wait(nanoseconds: 60_000_000_000), "once made, every wait returns at once")
        XCTAssertFalse(request.request(), "made already")
    }
}

/// A count any thread may add to.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .acquiring) }
    func add() { _ = count.add(1, ordering: .releasing) }
}
