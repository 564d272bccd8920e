import ALSA
import XCTest

/// Float → device sample format conversion, byte by byte (no device needed).
final class PCMConversionTests: XCTestCase {
    private let samples: [Float] = [0, 1, -1, 2, -2, 0.5, -0.5, .nan, 1e-6]

    private func bytes(_ format: PCMSampleFormat) -> [UInt8] {
        let buffer = InterleavedPCMBuffer(sampleFormat: format, channelCount: 1, frameCapacity: samples.count)
        samples.withUnsafeBufferPointer { buffer.store(channel: 0, samples: $0) }
        return buffer.withBytes(frameCount: samples.count) { Array($0) }
    }

    private func integers(_ bytes: [UInt8], width: Int) -> [Int64] {
        stride(from: 0, to: bytes.count, by: width).map { start in
            var value: Int64 = 0
            for (index, byte) in bytes[start..<start + width].enumerated() { value |= Int64(byte) << (8 * index) }
            let shift = 64 - 8 * width
            return (value << shift) >> shift  // sign-extend
        }
    }

    func testSigned16ClipsAndRoundsToNearest() {
        XCTAssertEqual(integers(bytes(.signed16), width: 2), [0, 32767, -32767, 32767, -32767, 16384, -16384, 0, 0])
    }

    func testSigned24BothLayouts() {
        let expected: [Int64] = [0, 8_388_607, -8_388_607, 8_388_607, -8_388_607, 4_194_304, -4_194_304, 0, 8]
        XCTAssertEqual(integers(bytes(.signed24Packed), width: 3), expected)
        XCTAssertEqual(integers(bytes(.signed24), width: 4), expected)
    }

    func testSigned32() {
        XCTAssertEqual(integers(bytes(.signed32), width: 4),
                       [0, 2_147_483_647, -2_147_483_647, 2_147_483_647, -2_147_483_647, 1_073_741_824, -1_073_741_824, 0, 2147])
    }

    func testFloatPassesThroughUnchanged() {
        let stored = bytes(.float32)
        let floats = stride(from: 0, to: stored.count, by: 4).map { start in
            Float(bitPattern: stored[start..<start + 4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
        }
        XCTAssertEqual(floats.map(\.bitPattern), samples.map(\.bitPattern))
    }

    func testChannelsInterleave() {
        let buffer = InterleavedPCMBuffer(sampleFormat: .signed16, channelCount: 2, frameCapacity: 2)
        [Float(1), -1].withUnsafeBufferPointer { buffer.store(channel: 0, samples: $0) }
        [Float(0.5), 0].withUnsafeBufferPointer { buffer.store(channel: 1, samples: $0) }
        let stored = buffer.withBytes(frameCount: 2) { Array($0) }
        XCTAssertEqual(integers(stored, width: 2), [32767, 16384, -32767, 0])
    }
}
