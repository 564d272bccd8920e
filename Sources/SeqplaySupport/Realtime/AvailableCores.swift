#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cores this process may run on: on Linux those of its CPU affinity (`taskset -c 0`, a
/// container's cpuset), not every core of the machine. What "every core" means for the threads and
/// workers seqplay starts by default.
public enum AvailableCores {
    /// How many cores the process may run on (1 at least).
    public static var count: Int {
        #if os(Linux)
        if let allowed = allowedByAffinity(), allowed > 0 { return allowed }
        #endif
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    #if os(Linux)
    /// The bits set in the `Cpus_allowed:` mask of /proc/self/status (hex digits, commas between
    /// 32-bit words), or nil where it cannot be read.
    private static func allowedByAffinity() -> Int? {
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let length = read(descriptor, &bytes, bytes.count)
        guard length > 0 else { return nil }
        let status = String(decoding: bytes[0..<length], as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) {
            if let digit = character.hexDigitValue { count += digit.nonzeroBitCount }
        }
        return count
    }
    #endif
}
