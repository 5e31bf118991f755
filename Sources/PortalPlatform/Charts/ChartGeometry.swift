import Foundation

/// Measures and scales shared by every chart kind.
package enum ChartGeometry {
    /// The drawing's width in its own units; the page scales it to the column it stands in.
    package static let width = 800.0
    package static let labelSize = 16.0
    package static let tickSize = 14.0
    package static let titleSize = 15.0

    /// The series' colours (the portal's own palette), each paired with a pattern so no series is told
    /// from another by colour alone.
    package static let colours = ["#1d70b8", "#d4351c", "#00703c", "#4c2c92", "#f47738", "#28a197", "#912b88", "#505a5f"]

    /// How wide `text` is drawn at `size` pixels, erring wide: the portal's sans-serif fonts draw a few
    /// letters wider than their average, and a label estimated too narrow would spill out of the drawing.
    package static func textWidth(_ text: String, size: Double) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars {
            switch scalar {
            case " ", ".", ",", ":", ";", "'", "|", "!", "i", "j", "l", "I", "(", ")", "[", "]", "/", "’":
                ems += 0.34
            case "f", "t", "r", "1", "-":
                ems += 0.45
            case "m", "w", "M", "W", "@", "%":
                ems += 0.95
            case "A"..."Z":
                ems += 0.74
            case "0"..."9":
                ems += 0.6
            case "a"..."z":
                ems += 0.6
            default:
                ems += scalar.value >= 0x2E80 ? 1.05 : 0.7
            }
        }
        return ems * size
    }

    /// `text` as it fits in `room`: whole when it fits, otherwise shortened with "…", with the whole text
    /// to keep in a tooltip.
    package static func fit(_ text: String, room: Double, size: Double) -> (shown: String, full: String?) {
        guard textWidth(text, size: size) > room else { return (text, nil) }
        var characters = Array(text)
        while !characters.isEmpty, textWidth(String(characters) + "…", size: size) > room {
            characters.removeLast()
        }
        let shown = String(characters).trimmingCharacters(in: .whitespaces)
        return (shown.isEmpty ? "…" : shown + "…", text)
    }

    /// Round tick values from 0 to at least `maximum`: steps of 1, 2 or 5 times a power of ten, about
    /// `count` of them. A chart of nothing still has an axis from 0 to 1.
    package static func ticks(upTo maximum: Double, count: Int = 5, wholeNumbers: Bool = true) -> [Double] {
        let top = maximum > 0 ? maximum : 1
        let rough = top / Double(max(1, count))
        let power = pow(10, floor(log10(rough)))
        var step = [1.0, 2.0, 5.0, 10.0].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        if wholeNumbers { step = max(1, step.rounded(.up)) }
        var ticks = [0.0]
        while ticks[ticks.count - 1] < top {
            ticks.append(Double(ticks.count) * step)
        }
        return ticks
    }

    /// A coordinate to one decimal place, as the drawing holds it.
    package static func rounded(_ value: Double) -> Double {
        (value * 10).rounded() / 10
    }

    /// A coordinate written with at most one decimal place.
    /// The same text as `String(format: "%.1f")` of the rounded value, written from its whole tenths (a long
    /// chart writes thousands of coordinates, and formatting through Foundation costs far more).
    package static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        guard rounded.isFinite, abs(rounded) < 1e15 else { return String(format: "%.1f", rounded) }
        let tenths = Int((value * 10).rounded())
        let whole = tenths.magnitude / 10, tenth = tenths.magnitude % 10
        return "\(tenths < 0 ? "-" : "")\(whole).\(tenth)"
    }

    /// The patterns of `count` series in a chart: colour and marks together.
    package static func patterns(chartID: String, count: Int) -> [ChartFigure.Pattern] {
        (0..<count).map { index in
            let kind = index % 6
            return ChartFigure.Pattern(
                id: "\(chartID)-pattern-\(index)",
                colour: colours[index % colours.count],
                solid: kind == 0,
                stripes: kind == 1,
                reverseStripes: kind == 4,
                dots: kind == 2,
                grid: kind == 3,
                rows: kind == 5
            )
        }
    }

    /// How much of `labels` can be shown along an axis of `length`: every label, or every second, third…
    package static func labelStride(_ labels: [String], length: Double, size: Double) -> Int {
        guard !labels.isEmpty else { return 1 }
        let widest = labels.map { textWidth($0, size: size) }.max() ?? 0
        let room = length / Double(labels.count)
        return max(1, Int(((widest + 10) / max(room, 1)).rounded(.up)))
    }

    /// Keeps labels at least `gap` apart vertically, in order, within `top...bottom`.
    package static func spread(_ positions: [Double], gap: Double, top: Double, bottom: Double) -> [Double] {
        let order = positions.indices.sorted { positions[$0] < positions[$1] }
        var placed = positions
        var previous = top - gap
        for index in order {
            placed[index] = max(placed[index], previous + gap)
            previous = placed[index]
        }
        // Pushed past the bottom: move the run back up.
        var next = bottom + gap
        for index in order.reversed() {
            placed[index] = min(placed[index], next - gap)
            next = placed[index]
        }
        return placed
    }

    package static func label(
        _ text: String,
        x: Double,
        y: Double,
        anchor: String = "start",
        className: String = "chart__label",
        room: Double? = nil,
        size: Double = labelSize,
        rotation: Int? = nil
    ) -> ChartFigure.Label {
        let fitted = room.map { fit(text, room: $0, size: size) } ?? (shown: text, full: nil)
        return ChartFigure.Label(
            x: x,
            y: y,
            text: fitted.shown,
            anchor: anchor,
            className: className,
            rotation: rotation,
            fullText: fitted.full
        )
    }

    /// The legend: one swatch and name per series, in rows across the top of the drawing. Returns its
    /// shapes and the height it takes.
    package static func legend(
        _ names: [String],
        patterns: [ChartFigure.Pattern],
        top: Double,
        left: Double = 10,
        right: Double = width - 10
    ) -> (boxes: [ChartFigure.Box], labels: [ChartFigure.Label], height: Double) {
        guard names.count > 1 else { return ([], [], 0) }
        var boxes: [ChartFigure.Box] = []
        var labels: [ChartFigure.Label] = []
        var x = left
        var y = top
        let room = right - left
        for (index, name) in names.enumerated() {
            let fitted = fit(name, room: room - 30, size: labelSize)
            let itemWidth = 24 + textWidth(fitted.shown, size: labelSize) + 24
            if x > left, x + itemWidth > right {
                x = left
                y += 26
            }
            boxes.append(ChartFigure.Box(x: x, y: y, width: 18, height: 18, fill: "url(#\(patterns[index].id))", tooltip: nil))
            labels.append(
                ChartFigure.Label(
                    x: x + 24,
                    y: y + 14,
                    text: fitted.shown,
                    anchor: "start",
                    className: "chart__label",
                    rotation: nil,
                    fullText: fitted.full
                )
            )
            x += itemWidth
        }
        return (boxes, labels, y - top + 34)
    }

    /// A stroke's path along a straight line.
    package static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> String {
        "M\(number(x1)) \(number(y1))L\(number(x2)) \(number(y2))"
    }

    /// Grid lines, tick labels and the axis line of a value axis running up the drawing.
    package static func verticalValueAxis(
        ticks: [Double],
        format: (Double) -> String,
        scale: (Double) -> Double,
        left: Double,
        right: Double
    ) -> (strokes: [ChartFigure.Stroke], labels: [ChartFigure.Label]) {
        var strokes: [ChartFigure.Stroke] = []
        var labels: [ChartFigure.Label] = []
        for tick in ticks {
            let y = scale(tick)
            strokes.append(ChartFigure.Stroke(path: line(left, y, right, y), className: "chart__grid", colour: nil, dashes: nil))
            labels.append(label(format(tick), x: left - 8, y: y + 5, anchor: "end", className: "chart__tick", size: tickSize))
        }
        return (strokes, labels)
    }
}
