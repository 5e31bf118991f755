import Foundation
import NIOCore
import PortalPlatform
import Synchronization

/// The chat sockets this server holds, by room: each gets every frame of its room as it happens. A
/// frame's bytes are made once and shared by every socket it goes to (a `ByteBuffer` is copied only
/// when written to, and a socket only reads it), and written to them as `PushSocket` does.
final class ChatListeners: Sendable {
    /// What a live signal says happened to a message.
    enum Change: String, Sendable {
        case posted, removed
    }

    private struct Listener: Sendable {
        let memberID: Int64
        let socket: PushSocket
    }

    private let rooms = Mutex<[Int64: [UUID: Listener]]>([:])

    /// Sends the room's frames to `socket` until `stop` is called.
    func listen(to cohortID: Int64, as memberID: Int64, on socket: PushSocket) -> UUID {
        let id = UUID()
        rooms.withLock { $0[cohortID, default: [:]][id] = Listener(memberID: memberID, socket: socket) }
        return id
    }

    /// The socket gets no frames sent after this; its session's end stops it writing (`PushSocket.stop`).
    func stop(_ id: UUID, in cohortID: Int64) {
        rooms.withLock { rooms in
            rooms[cohortID]?.removeValue(forKey: id)
            if rooms[cohortID]?.isEmpty == true { rooms[cohortID] = nil }
        }
    }

    func hasListeners(in cohortID: Int64) -> Bool {
        rooms.withLock { $0[cohortID]?.isEmpty == false }
    }

    var count: Int { rooms.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Hands `frame` to every socket, in any room, of a member `includes` accepts.
    func send(_ frame: ByteBuffer, toMembers includes: (Int64) -> Bool) {
        PushSocket.send(frame, to: rooms.withLock { $0.values.flatMap { $0.values.filter { includes($0.memberID) }.map(\.socket) } })
    }

    /// Hands `frame` to every socket of the room.
    func send(_ frame: ByteBuffer, to cohortID: Int64) {
        PushSocket.send(frame, to: rooms.withLock { ($0[cohortID] ?? [:]).values.map(\.socket) })
    }
}
