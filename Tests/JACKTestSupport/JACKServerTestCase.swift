import Foundation
import TestSupport
import XCTest

/// The base of a test class that runs against real JACK servers: each test is skipped, saying why,
/// where JACK tests do not run (`JACKTestServer.skipReason`), and has a scratch directory of its own
/// (`scratch`, removed after the test).
open class JACKServerTestCase: XCTestCase {
    /// This test's directory for its files (nil only when the test was skipped).
    public private(set) var scratch: ScratchDirectory!

    override open func setUpWithError() throws {
        try super.setUpWithError()
        if let reason = JACKTestServer.skipReason { throw XCTSkip(reason) }
        scratch = try ScratchDirectory(prefix: "\(type(of: self))")
    }

    override open func tearDown() {
        scratch?.remove()
        super.tearDown()
    }
}

extension JACKTools {
    /// Waits (up to 5 s) until `jack_lsp -c` shows `source` connected to `destination`; whether it is.
    public static func waitForConnection(from source: String, to destination: String, environment: [String: String]) throws -> Bool {
        for _ in 0..<250 {
            if try run("jack_lsp", ["-c", source], environment: environment).output.contains(destination) { return true }
            usleep(20_000)
        }
        return false
    }
}
