import Synchronization

/// The patients list's adherence over the last 30 days, kept per patient for as long as nothing it
/// was worked out from has changed.
///
/// Working it out is most of the list's cost (every log of the 30 days joined to its prescription),
/// and it changes only when the patient's logs or prescriptions do, or the days move on. An entry is
/// kept under the patient's `adherenceVersion`, which the database raises on every such change, and
/// under the first day counted: a list read after a change carries the new version and never finds
/// the old figure, whichever server made the change.
final class RecentAdherenceCache: Sendable {
    struct Key: Hashable, Sendable {
        let patientID: Int64
        let adherenceVersion: Int64
        let from: CalendarDate
    }

    /// Done out of scheduled as a whole percentage; `percent` is nil when nothing was due.
    struct Figure: Equatable, Sendable {
        let percent: Int?
    }

    /// Past this many kept figures (patients times versions), all are forgotten.
    static let capacity = 20_000
    private let figures = Mutex<[Key: Figure]>([:])

    func figure(for key: Key) -> Figure? {
        figures.withLock { $0[key] }
    }

    func remember(_ figure: Figure, for key: Key) {
        figures.withLock { figures in
            if figures.count >= Self.capacity { figures.removeAll(keepingCapacity: true) }
            figures[key] = figure
        }
    }
}
