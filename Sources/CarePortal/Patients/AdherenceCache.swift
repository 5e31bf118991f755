import PortalPlatform

/// Figures worked out from a patient's adherence logs and prescriptions, kept for as long as neither
/// has changed: the patients list's 30-day adherence, the patient page's charts.
///
/// Working them out is most of those pages' cost, and they change only when the patient's logs or
/// prescriptions do, or what is asked for does (the days, the month). An entry is kept under the
/// patient's `adherenceVersion`, which the database raises on every change to those rows, and under
/// what was asked (`Question`).
typealias AdherenceCache<Question: Hashable & Sendable, Figures: Sendable> = VersionedCache<AdherenceKey<Question>, Figures>

struct AdherenceKey<Question: Hashable & Sendable>: Hashable, Sendable {
    let patientID: Int64
    let adherenceVersion: Int64
    let question: Question

    init(_ patient: Patient, _ question: Question) {
        patientID = patient.id
        adherenceVersion = patient.adherenceVersion
        self.question = question
    }
}

typealias RecentAdherenceCache = AdherenceCache<CalendarDate, RecentAdherence>
typealias PatientChartsCache = AdherenceCache<PatientCharts.Question, PatientCharts>

/// The patients list's figure: done out of scheduled over the last 30 whole days, as a whole
/// percentage; nil when nothing was due.
struct RecentAdherence: Equatable, Sendable {
    let percent: Int?
}

/// The patient page's charts and overall figure for one span of days and one month.
struct PatientCharts: Sendable {
    /// What the charts were drawn for: the days, and her prescriptions as they are shown (their names
    /// come from the catalogue, which can change without changing her version).
    struct Question: Hashable, Sendable {
        let prescriptions: [Prescription]
        let days: Days
    }

    /// The days asked for: the span, the month, today (the calendar marks it), and the span as the
    /// address gave it (the month links keep it).
    struct Days: Hashable, Sendable {
        let range: PatientsController.Range
        let month: CalendarDate
        let today: CalendarDate
        let requestedFrom: String?
        let requestedTo: String?

        /// The first and last days of her logs the span and the month need.
        var firstRead: CalendarDate { min(range.from, month.firstOfMonth) }
        var lastRead: CalendarDate { max(range.through, min(month.lastOfMonth, today)) }
    }

    let adherence: AdherenceFigures
    let calendar: RenderedHTML
    let overall: String
}
