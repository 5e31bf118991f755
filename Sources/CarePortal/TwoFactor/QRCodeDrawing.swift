import CQREncode
import Foundation
import PortalPlatform

/// A QR code drawn on the server as SVG, with libqrencode choosing the modules.
struct QRCodeDrawing: Sendable {
    /// Dark modules, row by row; the side is 21 modules for version 1, four more for each version after.
    let modules: [[Bool]]

    /// Error correction level M (15%), the smallest version that holds `text`, as bytes.
    init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        modules = (0..<width).map { y in (0..<width).map { x in data[y * width + x] & 1 == 1 } }
    }

    /// One path of unit squares inside a four-module quiet zone, scaled by the browser without blur.
    func svg(title: String, size: Int = 240) -> String {
        let quiet = 4
        let side = modules.count + 2 * quiet
        var path = ""
        for (y, row) in modules.enumerated() {
            for (x, dark) in row.enumerated() where dark {
                path += "M\(x + quiet) \(y + quiet)h1v1h-1z"
            }
        }
        return """
            <svg class="qr-code" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(size)" height="\(size)" \
            role="img" aria-labelledby="qr-code-title" shape-rendering="crispEdges">\
            <title id="qr-code-title">\(HTMLEscaping.escape(title))</title>\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}
