import PortalPlatform

/// A cohort as the Analytics pages offer it: a due month with 5 or more members, or neighbouring due months
/// merged until they have (`grouped`). Every choice of cohorts is then a union of groups of 5 or more members, and
/// so is the difference of any two choices (cohorts A and B against A; all members against some cohorts), so
/// no subtraction of two selections singles out fewer than 5 members.
struct AnalyticsCohort: Sendable, Equatable {
    /// The first due month's cohort: the group's value in the page's address.
    let id: Int64
    let cohorts: [Cohort]
    let members: Int

    var cohortIDs: [Int64] { cohorts.map(\.id) }

    /// "Due April 2027", or "Due April 2027 to June 2027" for months merged.
    var name: String {
        guard let first = cohorts.first, let last = cohorts.last, cohorts.count > 1 else { return cohorts.first?.name ?? "" }
        return "\(first.name) to \(last.name.hasPrefix("Due ") ? String(last.name.dropFirst(4)) : last.name)"
    }

    /// `cohorts` in due-month order, each with its number of members, merged with the next ones until each group
    /// has `Disclosure.threshold` members or more; a last group with fewer joins the one before it.
    static func grouped(_ cohorts: [Cohort], members: [Int64: Int]) -> [AnalyticsCohort] {
        var groups: [[Cohort]] = []
        var current: [Cohort] = []
        func count(_ group: [Cohort]) -> Int { group.reduce(0) { $0 + (members[$1.id] ?? 0) } }
        for cohort in cohorts.sorted(by: { $0.dueMonth < $1.dueMonth }) {
            current.append(cohort)
            if count(current) >= Int(Disclosure.threshold) {
                groups.append(current)
                current = []
            }
        }
        if !current.isEmpty {
            if groups.isEmpty { groups.append(current) } else { groups[groups.count - 1] += current }
        }
        return groups.map { AnalyticsCohort(id: $0[0].id, cohorts: $0, members: count($0)) }
    }
}
