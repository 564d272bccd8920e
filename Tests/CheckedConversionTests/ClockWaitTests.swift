import Foundation
import SeqplaySupport
import XCTest

/// The two ways a thread waits: for a time itself (`MonotonicClock.wait(until:)`, on an absolute
/// deadline) and for the awaited side's post (`PostedSemaphore`), which ends the wait at once.
final class ClockWaitTests: XCTestCase {
    func testAWaitForATimeEndsAtItsDeadlineNeverBefore() {
        let start = MonotonicClock.now()
        for step in 1...5 {
            let deadline = start + UInt64(step) * 10_000_000
            MonotonicClock.wait(until: deadline)
            XCTAssertGreaterThanOrEqual(MonotonicClock.now(), deadline)
        }
        XCTAssertLessThan(MonotonicClock.now() - start, 2_000_000_000, "five 10 ms steps on a grid, not five sleeps of their own")
        let before = MonotonicClock.now()
        MonotonicClock.wait(until: before - 1_000_000)
        XCTAssertLessThan(MonotonicClock.now() - before, 100_000_000, "a deadline passed returns at once")
    }

    func testAPostEndsTheWaitAndAWaitWithoutOneRunsToItsDeadline() {
        let semaphore = PostedSemaphore()
        let start = MonotonicClock.now()
        XCTAssertFalse(semaphore.wait(until: start + 50_000_000))
        XCTAssertGreaterThanOrEqual(MonotonicClock.now(), start + 50_000_000)

        let poster = Thread { semaphore.post() }
        let asked = MonotonicClock.now()
        poster.start()
        XCTAssertTrue(semaphore.wait(until: asked + 60_000_000_000))
        XCTAssertLessThan(MonotonicClock.now() - asked, 5_000_000_000, "the post, not the minute's deadline, ended the wait")

        semaphore.post()
        XCTAssertTrue(semaphore.take(), "a post made before is taken without waiting")
        XCTAssertFalse(semaphore.take())
    }
}
