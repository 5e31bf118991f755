import Foundation
#if canImport(Glibc)
    import Glibc
#endif

enum LoopbackPort {
    /// A loopback port nothing listens on now: the system picks it, and it is released again at once.
    static func free() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 ? getsockname(descriptor, pointer, &length) : -1
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A loopback port something listens on but never accepts from. The system finishes connections for it
/// until its queue is full, then drops what else arrives: a connection attempt to a full listener waits
/// for an answer that never comes, as it does to a host cut off from the network.
final class LoopbackListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    /// A listener that answers (its queue has room), or with `full`, one whose queue of one is already full.
    init(full: Bool) throws {
        struct ListenFailed: Error { let code: Int32 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, full ? 0 : 64) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard listening else {
            let code = errno
            close(listener)
            throw ListenFailed(code: code)
        }
        var descriptors = [listener]
        // A backlog of 0 holds one finished connection; the others of these are left waiting.
        for _ in 0..<(full ? 3 : 0) {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            descriptors.append(filler)
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptors = descriptors
    }

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }
}
