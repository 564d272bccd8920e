import Control
import XCTest

/// `--osc 0`: the server says the port the system gave it (liblo's own answer is 0 then).
final class OSCPortTests: XCTestCase {
    func testPortZeroSaysThePortBound() throws {
        for host in [nil, "127.0.0.1"] as [String?] {
            let server = try OSCServer(host: host, port: 0)
            XCTAssertNotEqual(server.port, 0, "host \(host ?? "*")")
            // It is the port really bound: a second server cannot have it.
            XCTAssertThrowsError(try OSCServer(host: host, port: server.port), "host \(host ?? "*") port \(server.port)")
        }
    }
}
