import Foundation
import PortalPlatform
import SQLKit

extension PatientsPage {
    /// What the list reads: a page of patients, each one's adherence over the last 30 whole days, a
    /// physician's drafts of the wizard, and for an administrator each patient's physician.
    struct Listing: Sendable {
        let page: PageOf<Patient>
        let adherence: [Int64: RecentAdherence]
        let drafts: [PatientDraft]
        let physicians: [Int64: String]
    }

    static func load(
        _ query: PatientListQuery,
        staff: StaffAccount,
        today: CalendarDate,
        cache: RecentAdherenceCache,
        on db: any SQLDatabase
    ) async throws -> Listing {
        let isAdministrator = staff.role == .administrator
        let patients = PatientRepository()
        let page = try await patients.list(query, on: db)
        // Adherence over the last 30 whole days, yesterday included, so a day still under way never lowers it.
        let through = today.adding(days: -1), from = today.adding(days: -30)
        return Listing(
            page: page,
            adherence: try await recentAdherence(of: page.items, from: from, through: through, cache: cache, on: db),
            drafts: isAdministrator ? [] : try await RegimenRepository().drafts(physicianID: staff.id, on: db),
            physicians: isAdministrator ? try await patients.physicianNames(ids: page.items.map(\.physicianID), on: db) : [:]
        )
    }

    /// Each patient's adherence from `from` through `through`, worked out only for those whose figure
    /// is not kept under her current `adherenceVersion`.
    private static func recentAdherence(
        of listed: [Patient],
        from: CalendarDate,
        through: CalendarDate,
        cache: RecentAdherenceCache,
        on db: any SQLDatabase
    ) async throws -> [Int64: RecentAdherence] {
        var figures: [Int64: RecentAdherence] = [:]
        var missing: [Int64: AdherenceKey<CalendarDate>] = [:]
        for patient in listed {
            let key = AdherenceKey(patient, from)
            if let figure = cache.value(for: key) { figures[patient.id] = figure } else { missing[patient.id] = key }
        }
        guard !missing.isEmpty else { return figures }
        let ids = Array(missing.keys)
        let regimens = RegimenRepository()
        let done = try await regimens.doneCounts(patientIDs: ids, from: from, through: through, on: db)
        let schedules = Dictionary(grouping: try await regimens.schedules(patientIDs: ids, on: db), by: \.patientID)
        for (id, key) in missing {
            let scheduled = AdherenceSummary.scheduled(schedules[id] ?? [], from: from, through: through)
            let figure = RecentAdherence(percent: AdherenceCount.percent(done: done[id] ?? 0, scheduled: scheduled))
            cache.remember(figure, for: key)
            figures[id] = figure
        }
        return figures
    }

    /// The list as `query` found it; `address` is the list's own address, which sorting and paging keep.
    init(_ listing: Listing, query: PatientListQuery, address: ListAddress, isAdministrator: Bool, layout: Layout, pages: PageRenderer) {
        func header(_ title: String, _ sort: PatientSort) -> SortableHeader {
            SortableHeader(title: title, key: sort.rawValue, currentKey: query.sort.rawValue, descending: query.descending, address: address)
        }
        let rows = listing.page.items.map { patient in
            PatientRow(
                fullName: patient.fullName,
                lastName: patient.contact.lastName,
                firstName: patient.contact.firstName,
                medicalNumber: patient.contact.medicalNumber,
                lastActivity: patient.lastActivityAt.map(DisplayTime.dateTime) ?? "None yet",
                adherence: listing.adherence[patient.id]?.percent.map { "\($0)%" } ?? "Nothing due",
                physician: isAdministrator ? listing.physicians[patient.physicianID] ?? "Unknown" : nil,
                viewPath: SiteURL.patient(patient.id).path,
                editPath: SiteURL.editPatientContact(patient.id).path,
                removePath: SiteURL.patientRemove(patient.id).path
            )
        }
        let drafts = listing.drafts
        self.init(
            layout: layout,
            isAdministrator: isAdministrator,
            search: query.search,
            lastNameHeader: header("Last name", .lastName),
            numberHeader: header("Medical number", .medicalNumber),
            rows: pages.list(rows),
            pagination: pages.html(PaginationView(listing.page, address: address, noun: "patients")),
            isFiltered: !query.search.isEmpty,
            drafts: drafts.map {
                DraftLink(
                    name: $0.displayName,
                    step: "Step \($0.step.number) of 3, \($0.step.title)",
                    saved: DisplayTime.dateTime($0.updatedAt),
                    path: $0.step.url(draftID: $0.id).path,
                    discardPath: SiteURL.patientDraftCancel($0.id).path
                )
            },
            draftSummary: drafts.isEmpty ? nil : "\(drafts.count) draft\(drafts.count == 1 ? "" : "s")"
        )
    }
}
