import ALSA
import XCTest

/// The numeric address forms, which need no sequencer.
final class PortAddressTests: XCTestCase {
    func testReadsTheNumericFormsALSAToolsWrite() {
        XCTAssertEqual(PortAddress("14:0"), PortAddress(client: 14, port: 0))
        XCTAssertEqual(PortAddress("128:3"), PortAddress(client: 128, port: 3))
        XCTAssertEqual(PortAddress("20.1"), PortAddress(client: 20, port: 1))
        XCTAssertEqual(PortAddress("16"), PortAddress(client: 16, port: 0))
    }

    func testRefusesWhatIsNotANumericAddress() {
        for text in ["", "14:", ":0", "14:0:0", "256:0", "14:256", "-1:0", "Midi Through:0", "1 4:0"] {
            XCTAssertNil(PortAddress(text), text)
        }
    }

    func testWritesClientColonPortAndSortsByClientThenPort() {
        XCTAssertEqual("\(PortAddress(client: 129, port: 2))", "129:2")
        XCTAssertEqual([PortAddress("20:1")!, PortAddress("14:3")!, PortAddress("20:0")!].sorted(),
                       [PortAddress("14:3")!, PortAddress("20:0")!, PortAddress("20:1")!])
    }
}
