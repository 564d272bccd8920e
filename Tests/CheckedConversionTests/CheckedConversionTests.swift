import SeqplaySupport
import XCTest

/// The values that trap Swift's own conversions convert to nil or clamp instead.
final class CheckedConversionTests: XCTestCase {
    let hostile: [Double] = [.nan, -.nan, .infinity, -.infinity, 1e15 * 44_100, 1e30, -1e30, 2e19,
                             .greatestFiniteMagnitude, -.greatestFiniteMagnitude]

    func testCheckedIsNilOutsideTheRange() {
        for value in hostile {
            XCTAssertNil(Int64(checked: value), "\(value)")
            XCTAssertNil(UInt64(checked: value), "\(value)")
            XCTAssertNil(Int32(checked: value), "\(value)")
        }
        XCTAssertNil(UInt64(checked: -1))
        XCTAssertNil(UInt8(checked: 255.5))
        XCTAssertEqual(UInt8(checked: 254.5), 255)
        XCTAssertEqual(Int64(checked: -2.5), -3)
        XCTAssertEqual(Int64(checked: 2.5, rounding: .down), 2)
        XCTAssertEqual(Int64(checked: 9.2e18), 9_200_000_000_000_000_000)
        XCTAssertEqual(UInt64(checked: 1.8e19), 18_000_000_000_000_000_000)
    }

    func testClampingGoesToTheNearestEnd() {
        XCTAssertEqual(Int64(clamping: Double.infinity), .max)
        XCTAssertEqual(Int64(clamping: 1e30), .max)
        XCTAssertEqual(Int64(clamping: -1e30), .min)
        XCTAssertEqual(UInt64(clamping: -1.0), 0)
        XCTAssertEqual(UInt32(clamping: Double.nan), 0)
        XCTAssertEqual(Int16(clamping: 40_000.0), .max)
        XCTAssertEqual(Int(clamping: 12.4), 12)
    }

    func testWithinRejectsNaNAndInfinity() {
        XCTAssertNil(Double.nan.within(0...86_400))
        XCTAssertNil(Double.infinity.within(0...Double.greatestFiniteMagnitude))
        XCTAssertNil((-1.0).within(0...1))
        XCTAssertEqual(0.5.within(0...1), 0.5)
    }

    func testNanosecondsOfAnySpanCanBeAddedToAClock() {
        XCTAssertEqual(UInt64(nanoseconds: 1.5), 1_500_000_000)
        XCTAssertEqual(UInt64(nanoseconds: -3), 0)
        XCTAssertEqual(UInt64(nanoseconds: .nan), 0)
        for huge in [1e30, Double.infinity] {
            let span = UInt64(nanoseconds: huge)
            XCTAssertEqual(span, UInt64.maximumSpanNanoseconds)
            XCTAssertFalse((UInt64(1) << 62).addingReportingOverflow(span).overflow, "a clock reading of 146 years plus the span")
        }
    }
}
