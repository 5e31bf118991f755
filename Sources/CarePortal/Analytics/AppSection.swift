/// The sections of the member app whose views the app reports (`POST /api/v1/events`), in the order the
/// app shows them. The raw values are what the app sends and what is stored: never change one.
enum AppSection: String, Sendable, CaseIterable {
    case home, chat, desk, learning, surveys, calendar, resources, notifications, points, moods, profile

    var title: String {
        switch self {
        case .home: "Home"
        case .chat: "Chat"
        case .desk: "Information desk"
        case .learning: "Learning"
        case .surveys: "Surveys"
        case .calendar: "Calendar"
        case .resources: "Resources and helplines"
        case .notifications: "Notifications"
        case .points: "Points"
        case .moods: "Mood check-in"
        case .profile: "Profile"
        }
    }
}
