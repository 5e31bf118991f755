import Hummingbird

/// `GET /` answers "Hello, world!" on 127.0.0.1 at the port given first on the command line.
let router = Router()
router.get("/") { _, _ in "Hello, world!" }
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8080
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
