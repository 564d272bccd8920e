import Rendering
import XCTest

final class BatchShardTests: XCTestCase {
    private let inputs = (0..<500).map { BatchInput(path: "corpus/\($0).mid", relativePath: "dir\($0 % 7)/song\($0).mid") }

    func testThreeShardsCoverEveryInputExactlyOnce() throws {
        let shards = (1...3).map { BatchShard(index: $0, count: 3)! }
        for input in inputs {
            XCTAssertEqual(shards.filter { $0.contains(input) }.count, 1, input.relativePath)
        }
        // Each slice gets a fair share (a hash, not a round robin).
        for shard in shards { XCTAssertGreaterThan(inputs.filter(shard.contains).count, 120) }
    }

    func testSliceDependsOnlyOnTheRelativePath() {
        let shard = BatchShard(index: 2, count: 5)!
        let inOrder = Set(inputs.filter(shard.contains).map(\.relativePath))
        let shuffled = Set(inputs.reversed().filter(shard.contains).map(\.relativePath))
        XCTAssertEqual(inOrder, shuffled)
        // The same relative path found elsewhere (another machine's mount point) is in the same slice.
        let moved = inputs.map { BatchInput(path: "/mnt/other/" + $0.relativePath, relativePath: $0.relativePath) }
        XCTAssertEqual(Set(moved.filter(shard.contains).map(\.relativePath)), inOrder)
    }

    func testParsing() {
        XCTAssertEqual(BatchShard(parsing: "2/8"), BatchShard(index: 2, count: 8))
        for bad in ["0/3", "4/3", "1/0", "x/2", "1", "1/2/3", "-1/2", ""] {
            XCTAssertNil(BatchShard(parsing: bad), bad)
        }
    }
}
