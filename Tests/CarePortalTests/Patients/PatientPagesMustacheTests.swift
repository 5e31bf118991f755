import Foundation
import Mustache
import Testing
@testable import CarePortal
@testable import PortalPlatform

/// The patient pages' models answer the templates directly instead of by reflection; each must answer
/// exactly what reflection would, for every property, so no template value goes missing.
@Suite struct PatientPagesMustacheTests {
    /// Every stored property of `value`, as reflection sees it, against what `child(named:)` answers.
    static func expectParity(_ value: some MustacheParent, sourceLocation: SourceLocation = #_sourceLocation) {
        let mirror = Mirror(reflecting: value)
        #expect(!mirror.children.isEmpty)
        for child in mirror.children {
            guard let label = child.label else { continue }
            let reflected =
                Mirror(reflecting: child.value).displayStyle == .optional
                ? Mirror(reflecting: child.value).children.first.map { String(describing: $0.value) }
                : String(describing: child.value)
            let answered = value.child(named: label).map { String(describing: $0) }
            #expect(answered == reflected, "\(type(of: value)).\(label)", sourceLocation: sourceLocation)
        }
        #expect(value.child(named: "noSuchProperty") == nil)
    }

    static func summary() -> AdherenceSummary {
        let start = CalendarDate(year: 2026, month: 11, day: 1)!
        let prescription = Prescription(
            id: 1,
            patientID: 1,
            kind: .medication,
            itemID: 1,
            name: "Levodopa/carbidopa",
            description: "",
            dose: "25/100 mg tablet",
            amountID: nil,
            frequencyID: 1,
            frequencyName: "Twice daily",
            timesPerDay: 2,
            everyDays: 1,
            note: "With water",
            position: 0,
            startsOn: start.adding(days: 2),
            endsOn: nil,
            createdAt: Date(),
            createdBy: nil,
            hasIllustration: false
        )
        let logs = [AdherenceLog(prescriptionID: 1, day: start.adding(days: 3), slot: 1, status: .done, loggedAt: Date())]
        return AdherenceSummary(prescriptions: [prescription], logs: logs, from: start, through: start.adding(days: 9))
    }

    @Test func chartsAnswerAsReflectionWould() throws {
        let summary = Self.summary()
        let daily = DailyAdherenceChart(summary)
        Self.expectParity(daily)
        Self.expectParity(try #require(daily.bars.first))
        Self.expectParity(try #require(daily.nothingDue.first))
        Self.expectParity(try #require(daily.xTicks.first))
        Self.expectParity(try #require(daily.rows.first))
        let items = ItemAdherenceChart(summary)
        Self.expectParity(items)
        Self.expectParity(try #require(items.bars.first))
        let calendar = AdherenceCalendar(month: summary.from, summary: summary, today: summary.through, previousPath: "/p", nextPath: nil)
        Self.expectParity(calendar)
        Self.expectParity(try #require(calendar.cells.first))
        Self.expectParity(try #require(calendar.headings.first))
        Self.expectParity(try #require(calendar.legend.first))
    }

    @Test func rowsAnswerAsReflectionWould() throws {
        let summary = Self.summary()
        Self.expectParity(PrescriptionView(try #require(summary.itemDays.first).prescription))
        Self.expectParity(ActivityRow(when: "w", day: "d", what: "x", status: "Done"))
        Self.expectParity(
            PatientReportPage.Row(
                date: "d",
                kind: "k",
                item: "i",
                dose: "1",
                frequency: "f",
                scheduled: 2,
                done: 1,
                missed: 1,
                notLogged: 0,
                adherence: "50%"
            )
        )
        let draft = DraftLink(name: "n", step: "s", saved: "d", path: "/p", discardPath: "/d")
        Self.expectParity(draft)
        Self.expectParity(FragmentList(html: RenderedHTML(markup: "<tr><td>B</td></tr>"), isEmpty: false))
        let layout = Layout(title: "T", programName: "P", header: RenderedHTML(markup: "<header></header>"), csrfToken: "c", flash: nil)
        let header = SortableHeader(
            title: "Last name",
            key: "last-name",
            currentKey: "last-name",
            descending: false,
            address: ListAddress(path: "/patients", parameters: [])
        )
        Self.expectParity(
            PatientsPage(
                layout: layout,
                isAdministrator: false,
                search: "",
                lastNameHeader: header,
                numberHeader: header,
                rows: FragmentList(html: RenderedHTML(markup: "<tr><td>B</td></tr>"), isEmpty: false),
                pagination: RenderedHTML(markup: "<p class=\"pagination__summary\">Showing 1 patient</p>"),
                isFiltered: false,
                drafts: [draft],
                draftSummary: "1 draft"
            )
        )
    }
}
