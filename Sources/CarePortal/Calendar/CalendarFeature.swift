import Foundation
import PortalPlatform

/// Members' own calendars in the app — appointments, medication times, anything else — with reminders
/// in their feed ahead by their preference, through the app's API and her pages in the web app. It has no
/// staff page: a member's calendar is not the program's business.
struct CalendarFeature: PortalFeature {
    static let program: Program? = .perinatalCommunity
    static let notificationKinds: [NotificationKind] = [.calendarReminder]
    static let templates: [TemplateName] = TemplateName.appCalendarTemplates

    let portal: Portal
    let calendar: MemberCalendar

    init(portal: Portal) {
        self.portal = portal
        calendar = MemberCalendar(portal: portal)
    }

    func addRoutes(to routes: inout PortalRoutes) {
        CalendarAPIController(portal: portal, calendar: calendar).addRoutes(to: &routes)
        CalendarAppController(portal: portal, calendar: calendar).addRoutes(to: &routes)
    }

    var jobs: [BackgroundJob] {
        let calendar = self.calendar
        return [BackgroundJob("Calendar reminders", every: NotificationsFeature.scheduleInterval) { try await calendar.remindDue() }]
    }
}
