import Foundation
import PortalPlatform
import SQLKit

/// One demo survey for `seed-demo`, open for the next two weeks to every member, with demo answers from
/// some of the demo members. Everything in it says "(demo data)".
extension DemoData {
    func seedSurveys(on db: any SQLDatabase) async throws {
        guard let admin = account(.administrator) else { return }
        let repository = SurveyRepository()
        let clock = try await ProgramSettingsRepository().clock(on: db)
        let today = clock.date(of: now)
        let id = try await repository.create(
            SurveyDetails(
                title: "How are the group meetings going? (demo data)",
                introduction: "Five short questions about the weekly group meetings. Your answers help us plan the next months. (demo data)",
                opensOn: today.adding(days: -3),
                closesOn: today.adding(days: 14),
                cohortIDs: nil
            ),
            by: admin,
            now: now.addingTimeInterval(-4 * 86_400),
            on: db
        )
        let questions: [QuestionDraft] = [
            QuestionDraft(
                kind: .singleChoice,
                prompt: "How often do you come to the group meetings?",
                required: true,
                choices: ["Every week", "Most weeks", "Now and then", "Not yet"]
            ),
            QuestionDraft(
                kind: .multipleChoice,
                prompt: "What helps you most at the meetings?",
                required: true,
                choices: ["Talking with other mums", "The speakers", "Practical advice", "Childcare during the meeting"]
            ),
            QuestionDraft(
                kind: .scale,
                prompt: "How supported do you feel by your cohort?",
                required: true,
                choices: [],
                scaleLowLabel: "Not at all",
                scaleHighLabel: "Very supported"
            ),
            QuestionDraft(
                kind: .text,
                prompt: "Is there anything you would change about the meetings?",
                required: false,
                choices: [],
                maximumLength: 500
            )
        ]
        for question in questions { _ = try await repository.addQuestion(question, surveyID: id, on: db) }
        _ = try await repository.publish(id: id, now: now.addingTimeInterval(-3 * 86_400), on: db)
        _ = try await repository.claimAnnouncement(id: id, now: now.addingTimeInterval(-3 * 86_400), on: db)
        let feeds = MemberNotifications(notifications: Notifications(now: { now.addingTimeInterval(-3 * 86_400) }))
        try await feeds.notifyMembers(
            of: nil,
            NewNotification(
                kind: .surveyOpen,
                message: "A new survey is open for you: How are the group meetings going? (demo data)",
                subject: .survey(id),
                onceKey: "survey:\(id)"
            ),
            on: db
        )

        let stored = try await repository.questions(surveyID: id, on: db)
        var everyone = MemberListQuery()
        everyone.page = PageRequest(number: 1, size: 200)
        let members = try await MemberRepository().list(everyone, on: db).items.filter { $0.status == .active }
        let comments = [
            "Could we meet a little later, after work? (demo data)",
            "More time to just talk would be nice. (demo data)",
            "It is great as it is, thank you. (demo data)"
        ]
        _ = try await repository.lockForAnswers(surveyID: id, today: today, on: db)
        let answering = members.prefix(max(0, members.count * 2 / 3))
        for (index, member) in answering.enumerated() {
            var answers = [
                SurveyAnswer(questionID: stored[0].id, choice: index % 4 + 1),
                SurveyAnswer(questionID: stored[1].id, choice: index % 4 + 1),
                SurveyAnswer(questionID: stored[2].id, choice: 5 - index % 4)
            ]
            if index % 3 == 0 { answers.append(SurveyAnswer(questionID: stored[1].id, choice: (index + 1) % 4 + 1)) }
            if index % 2 == 0 { answers.append(SurveyAnswer(questionID: stored[3].id, text: comments[index / 2 % comments.count])) }
            let at = now.addingTimeInterval(-Double(answering.count - index) * 3_600)
            _ = try await repository.insertResponse(
                surveyID: id,
                memberID: member.id,
                cohortID: member.cohort.id,
                clientID: "demo-\(index)",
                answers: answers,
                pointsAwarded: 0,
                now: at,
                on: db
            )
            try await MemberEvents().record(
                MemberEvent(
                    kind: .surveySubmitted,
                    memberID: member.id,
                    cohortID: member.cohort.id,
                    occurredAt: at,
                    number: id,
                    clientID: "survey:\(id)"
                ),
                on: db
            )
        }
    }
}
