import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing
@testable import PortalPlatform

/// Frames the server pushes to apps' WebSockets from elsewhere (a chat room's messages).
@Suite struct PushSocketTests {
    /// A connected channel on `loop`, standing in for an app's socket.
    static func socket(on loop: EmbeddedEventLoop) async throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        try await channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        return channel
    }

    /// The text of each frame written to `channel` since last read, in order.
    static func sent(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
            #expect(frame.opcode == .text && frame.fin)
            texts.append(String(buffer: frame.unmaskedData))
        }
        return texts
    }

    @Test func framesReachEverySocketInTheOrderSentAndNoneAfterItsSessionEnds() async throws {
        let loop = EmbeddedEventLoop()
        let first = try await Self.socket(on: loop), second = try await Self.socket(on: loop)
        let sockets = [PushSocket(channel: first), PushSocket(channel: second)]
        PushSocket.send(ByteBuffer(string: "one"), to: sockets)
        PushSocket.send(ByteBuffer(string: "two"), to: sockets)
        loop.run()
        #expect(try Self.sent(first) == ["one", "two"])
        #expect(try Self.sent(second) == ["one", "two"])

        sockets[1].stop()
        PushSocket.send(ByteBuffer(string: "three"), to: sockets)
        loop.run()
        #expect(try Self.sent(first) == ["three"])
        #expect(try Self.sent(second).isEmpty, "a socket whose session ended gets nothing more")
    }

    @Test func aRoomLargerThanATurnIsWrittenInTurnsThatLetTheThreadAnswerInBetween() async throws {
        let loop = EmbeddedEventLoop()
        let count = ThreadWrites.socketsPerTurn * 2 + 5
        var channels: [EmbeddedChannel] = []
        for _ in 0..<count { channels.append(try await Self.socket(on: loop)) }
        let sockets = channels.map { PushSocket(channel: $0) }
        PushSocket.send(ByteBuffer(string: "one"), to: sockets)
        PushSocket.send(ByteBuffer(string: "two"), to: sockets)
        let answered = NIOLockedValueBox(false)
        loop.execute { answered.withLockedValue { $0 = true } } // as a request's answer is written
        loop.run()
        #expect(answered.withLockedValue { $0 }, "a job queued after the frames runs before they are all written")
        let firstTurn = try channels.map { try Self.sent($0) }
        #expect(firstTurn.prefix(ThreadWrites.socketsPerTurn).allSatisfy { $0 == ["one"] })
        #expect(firstTurn.dropFirst(ThreadWrites.socketsPerTurn).allSatisfy { $0.isEmpty })

        loop.advanceTime(by: ThreadWrites.pause * 10)
        let rest = try channels.map { try Self.sent($0) }
        #expect(rest.prefix(ThreadWrites.socketsPerTurn).allSatisfy { $0 == ["two"] })
        #expect(rest.dropFirst(ThreadWrites.socketsPerTurn).allSatisfy { $0 == ["one", "two"] }, "each socket gets the frames in order")
    }

    @Test func aSocketWhoseAppStoppedReadingIsClosedRatherThanGivenMore() async throws {
        let loop = EmbeddedEventLoop()
        let reading = try await Self.socket(on: loop), stuck = try await Self.socket(on: loop)
        let sockets = [PushSocket(channel: reading), PushSocket(channel: stuck)]
        stuck.isWritable = false // as NIO reports a connection holding more than its high-water mark
        PushSocket.send(ByteBuffer(string: "one"), to: sockets)
        loop.run()
        #expect(try Self.sent(reading) == ["one"])
        #expect(try Self.sent(stuck).isEmpty)
        #expect(!stuck.isActive, "closed: the app connects again and reads what it missed")
        #expect(reading.isActive)

        stuck.isWritable = true
        PushSocket.send(ByteBuffer(string: "two"), to: sockets)
        loop.run()
        #expect(try Self.sent(reading) == ["two"])
        #expect(try Self.sent(stuck).isEmpty)
    }
}
