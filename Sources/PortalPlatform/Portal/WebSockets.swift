import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import Prometheus
import Synchronization

/// What a WebSocket endpoint does with a connection: `inbound` from the app, `outbound` to it, and
/// `socket` for what the server pushes to it from elsewhere.
package typealias WebSocketSession =
    @Sendable (
        _ holder: AppAccountHolder, _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ socket: PushSocket,
        _ logger: Logger
    ) async throws -> Void

/// An app's WebSocket as the server pushes frames to it from elsewhere (a chat room's messages, a nudge
/// that her feed changed). Frames are written straight to the connection on the connection's own
/// thread: `send(_:to:)` hands each thread its sockets (`ThreadWrites`), so a message to a room of a
/// thousand sockets costs a thousand writes and no task, hand-over or buffer per socket. Frames reach
/// each socket in the order they were sent.
///
/// A socket whose app has stopped reading (its connection holding more than NIO's high-water mark,
/// 64 KiB, of unsent frames) is closed, neither holding the server's memory nor quietly missing frames:
/// the app connects again and reads what it missed.
package final class PushSocket: Sendable {
    private let channel: any Channel
    private let open = Atomic<Bool>(true)

    package init(channel: any Channel) {
        self.channel = channel
    }

    /// Nothing is written after this: the session is ending, and its close frame may follow.
    package func stop() {
        open.store(false, ordering: .releasing)
    }

    /// Writes `frame` and sends it; on the connection's thread.
    fileprivate func write(_ frame: WebSocketFrame) {
        guard open.load(ordering: .acquiring) else { return }
        guard channel.isWritable else {
            stop()
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Sends `text` as one text frame to each of `sockets`.
    package static func send(_ text: ByteBuffer, to sockets: some Sequence<PushSocket>) {
        var byThread: [ObjectIdentifier: (thread: any EventLoop, sockets: [PushSocket])] = [:]
        for socket in sockets {
            let thread = socket.channel.eventLoop
            byThread[ObjectIdentifier(thread), default: (thread, [])].sockets.append(socket)
        }
        let frame = WebSocketFrame(fin: true, opcode: .text, data: text)
        for (thread, sockets) in byThread.values {
            let writes = ThreadWrites.of(thread)
            thread.execute { writes.add(frame, to: sockets) }
        }
    }
}

/// The frames one NIO thread has yet to write to its sockets, written a few sockets at a time with a
/// pause between. NIO runs every job queued on a thread before it reads its connections again, so one
/// job writing a frame to a whole room would keep a request arriving on that thread, and the answers
/// the thread writes, waiting until the last socket was written; the pause lets the thread read and
/// answer in between. Frames are written in the order they were added, so each socket gets them in
/// order. Its state is touched only on its thread.
final class ThreadWrites: @unchecked Sendable {
    /// How many sockets are written before the thread turns to its connections.
    static let socketsPerTurn = 128
    /// Long enough that the thread finds nothing left to run and looks at its connections.
    static let pause = TimeAmount.microseconds(20)

    private static let threads = Mutex<[ObjectIdentifier: ThreadWrites]>([:])

    /// The one queue of `thread`.
    static func of(_ thread: any EventLoop) -> ThreadWrites {
        threads.withLock { threads in
            if let writes = threads[ObjectIdentifier(thread)] { return writes }
            let writes = ThreadWrites(thread: thread)
            threads[ObjectIdentifier(thread)] = writes
            return writes
        }
    }

    private let thread: any EventLoop
    private var waiting = CircularBuffer<(frame: WebSocketFrame, sockets: [PushSocket])>()
    /// How many of the first frame's sockets have been written.
    private var written = 0
    private var writing = false

    private init(thread: any EventLoop) {
        self.thread = thread
    }

    func add(_ frame: WebSocketFrame, to sockets: [PushSocket]) {
        thread.preconditionInEventLoop()
        waiting.append((frame, sockets))
        if !writing {
            writing = true
            writeSome()
        }
    }

    private func writeSome() {
        var turn = Self.socketsPerTurn
        while turn > 0, let (frame, sockets) = waiting.first {
            let end = min(sockets.count, written + turn)
            for socket in sockets[written..<end] { socket.write(frame) }
            turn -= end - written
            written = end
            if written == sockets.count {
                waiting.removeFirst()
                written = 0
            }
        }
        if waiting.isEmpty {
            writing = false
        } else {
            thread.scheduleTask(in: Self.pause) { self.writeSome() }
        }
    }
}

/// The WebSocket endpoints of the features, by path. An upgrade is accepted only on a registered path,
/// while its program runs, for an app account of the endpoint's kind presenting a token in force: the
/// app's bearer token, or the web app's cookie from a page of this portal (`Origin` is the portal's own,
/// so another site's page cannot open a socket with the browser's cookie); anything else is left to the
/// HTTP route of the same path, which answers as any API route does (401 without a token, 404 while
/// the program is off, 426 for a plain request).
package final class WebSocketEndpoints: Sendable {
    private struct Endpoint: Sendable {
        let kind: AppAccountKind
        let program: Program?
        let session: WebSocketSession
        /// The connections open on it now.
        let connections: Prometheus.Gauge
    }

    private let endpoints = Mutex<[String: Endpoint]>([:])

    package init() {}

    fileprivate func add(path: String, kind: AppAccountKind, program: Program?, connections: Prometheus.Gauge, session: @escaping WebSocketSession) {
        endpoints.withLock { $0[path] = Endpoint(kind: kind, program: program, session: session, connections: connections) }
    }

    /// The answer to an upgrade request on `channel`.
    package func upgrade(
        _ request: HTTPRequest,
        on channel: any Channel,
        portal: Portal
    ) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = String((request.path ?? "").prefix { $0 != "?" })
        guard let endpoint = endpoints.withLock({ $0[path] }),
            portal.programSettings.current.runs(endpoint.program),
            let token = request.headerFields.bearerToken ?? Self.pageToken(request, kind: endpoint.kind, portal: portal),
            let holder = try? await portal.authenticate(endpoint.kind, bearerToken: token)
        else { return .dontUpgrade }
        return .upgrade([:]) { inbound, outbound, context in
            endpoint.connections.increment()
            let socket = PushSocket(channel: channel)
            defer {
                socket.stop()
                endpoint.connections.decrement()
            }
            try await endpoint.session(holder, inbound, outbound, socket, context.logger)
        }
    }

    /// The token of the web app's cookie for `kind`, when the request comes from one of the portal's pages.
    private static func pageToken(_ request: HTTPRequest, kind: AppAccountKind, portal: Portal) -> String? {
        guard request.headerFields[.origin] == portal.settings.origin else { return nil }
        let cookies = Cookies(from: request.headerFields[values: .cookie])
        return AppPageCookies.token(in: cookies[portal.appPageCookies.sessionName]?.value, for: kind)
    }
}

extension PortalRoutes {
    /// A WebSocket endpoint for one kind of app account at `path`, and the plain HTTP route of the same
    /// path (which answers 426 Upgrade Required to an app whose token is in force), so the route walks
    /// see it like any other.
    package mutating func webSocket(_ path: String, for kind: AppAccountKind, session: @escaping WebSocketSession) {
        portal.webSockets.add(
            path: path,
            kind: kind,
            program: program,
            connections: portal.metrics.webSocketConnections(path: path),
            session: session
        )
        get(RouterPath(path), access: .app(kind)) { _, _ in
            throw APIError(status: .upgradeRequired, code: "upgrade_required", message: "Connect with a WebSocket.")
        }
    }
}
