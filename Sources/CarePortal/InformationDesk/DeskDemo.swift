import Foundation
import PortalPlatform
import SQLKit

/// Demo threads for the information desk: questions across the topics members ask about, some
/// anonymous, most answered, some with accepted answers, a few flagged. Written in plain words, as
/// members and nurses write; none of it is medical advice.
struct DemoDesk: Sendable {
    let now: Date
    let repository: DeskRepository

    private struct Topic {
        let titles: [String]
        let bodies: [String]
        let answers: [String]
    }

    private static let medicines = ["methadone", "buprenorphine", "Subutex", "Suboxone"]
    private static let stages = ["first trimester", "second trimester", "third trimester", "last few weeks"]

    private static let topics: [Topic] = [
        Topic(
            titles: [
                "Is it safe to stay on {med} while pregnant?", "Should my {med} dose change in the {stage}?",
                "Will my baby have withdrawal because of {med}?", "Can I split my {med} dose during the {stage}?",
                "My clinic wants to lower my {med} dose in the {stage}", "Does {med} affect how the baby grows?"
            ],
            bodies: [
                "I have been stable for a year and I am scared that staying on it will hurt the baby.",
                "I feel sick in the evenings before my next dose. Is that the dose wearing off?",
                "My family keeps telling me I should stop now that I am pregnant. I don't know what to believe.",
                "I am seeing a new doctor next week and want to know what to ask."
            ],
            answers: [
                "Stopping suddenly is riskier for you and the baby than staying on a steady dose. Please don't change anything without your prescriber; it is common for the dose to go **up** later in pregnancy, not down.",
                "Many women need their dose adjusted as pregnancy goes on, because the body clears the medicine faster. Tell your clinic about the evening sickness: splitting the dose is something they can consider with you.",
                "Some babies do need extra care for withdrawal after birth, and hospitals are used to it. Holding your baby skin to skin, breastfeeding if you can and rooming in all help a lot."
            ]
        ),
        Topic(
            titles: [
                "How often should I have prenatal appointments in the {stage}?", "Missed my {stage} scan, what now?",
                "Which vitamins should I take in the {stage}?", "Is it normal to feel so tired in the {stage}?",
                "What tests happen in the {stage}?", "Do I have to tell my OB about {med}?"
            ],
            bodies: [
                "I couldn't get a ride and I'm worried I've messed things up.",
                "This is my first pregnancy and nobody explained what to expect.",
                "I get anxious at appointments and sometimes I just don't go.",
                "I've been taking a regular multivitamin, is that enough?"
            ],
            answers: [
                "You haven't messed anything up. Call the office and ask to rebook; they would much rather see you late than not at all. Ask about transport help too: many clinics have it.",
                "A prenatal vitamin with **folic acid** is the usual advice; your OB can tell you about iron and vitamin D. Bring the bottle to your next visit so they can check it.",
                "Yes, please do tell them. Your care is safer when everyone knows, and they have looked after many women in recovery. It is kept in your medical record, not shared with others."
            ]
        ),
        Topic(
            titles: [
                "Sweating and restless legs at night", "Cravings are worse since I got pregnant",
                "Is this withdrawal or morning sickness?", "Yawning and goosebumps before my {med} dose",
                "Can't sleep in the {stage}", "Stomach cramps, should I worry?"
            ],
            bodies: [
                "It starts a few hours before my next dose and lasts until I take it.",
                "I don't want to use again but some days are really hard.",
                "I'm not sure whether to call my clinic or the OB.",
                "It has been like this for about a week now."
            ],
            answers: [
                "Those can be signs that your dose is wearing off before the next one. Let your clinic know this week; adjusting the dose or timing often helps. If you have bleeding, severe pain or fewer baby movements, call your OB or 911 straight away.",
                "Cravings are common and they are not a failure. Tell your counsellor or clinic; extra support now is normal. If you feel you might use, call your sponsor or the helpline before you do anything else."
            ]
        ),
        Topic(
            titles: [
                "How do I find a counsellor who understands recovery?", "Is group counselling worth it?",
                "My counsellor wants me to talk about my past", "Counselling while looking after a toddler",
                "Telehealth counselling in the {stage}?", "I feel ashamed talking about using"
            ],
            bodies: [
                "I tried once before and it didn't feel like they understood.",
                "I don't have childcare and sessions are during the day.",
                "I'm not ready to share everything but I want help.",
                "My partner doesn't think I need it anymore."
            ],
            answers: [
                "Ask your clinic for a counsellor who works with women in recovery; many offer video sessions you can do at home. It's fine to say you're not ready to talk about some things yet; a good counsellor goes at your pace.",
                "Groups help many women feel less alone, and you can listen without speaking at first. If daytime doesn't work, ask about evening or online groups."
            ]
        ),
        Topic(
            titles: [
                "Can I breastfeed on {med}?", "Breastfeeding and my {med} dose going up",
                "Will breastfeeding help with the baby's withdrawal?", "Pumping milk in the NICU",
                "Do I need to stop breastfeeding if I relapse?", "Getting ready to breastfeed in the {stage}"
            ],
            bodies: [
                "The nurse at my last visit said one thing and my friend said another.",
                "I really want to breastfeed but I'm scared of passing something to the baby.",
                "The baby might have to stay in the hospital for a while after birth.",
                "I have no idea where to start."
            ],
            answers: [
                "For most women on a stable dose, breastfeeding is encouraged: only a small amount passes into milk, and it can ease the baby's withdrawal. Talk it through with your OB and paediatrician, especially if you take other medicines.",
                "If you use again, talk to your care team before the next feed: they may ask you to pump and throw away milk for a while. Telling them is about keeping the baby safe, not about judging you."
            ]
        )
    ]

    private static let flagReasons = ["This could scare people", "Selling something", "Not kind to other members", "Shares someone's private details"]

    /// Adds `count` threads asked by `members` over the last two months, answered by `staff`.
    func seed(count: Int, members: [Int64], staff: [DeskAuthor], on db: any SQLDatabase) async throws {
        guard !members.isEmpty, !staff.isEmpty else { return }
        for index in 0..<count {
            let topic = Self.topics[index % Self.topics.count]
            let round = index / Self.topics.count
            let title = Self.fill(topic.titles[round % topic.titles.count], index: index)
            let body =
                topic.bodies[(round + index) % topic.bodies.count]
                + (index % 3 == 0 ? " I'm in my \(Self.stages[index % Self.stages.count])." : "")
            let asker = members[(index * 7) % members.count]
            // Older questions first, so the newest few are still waiting.
            let asked = now.addingTimeInterval(-Double(count - index) * 5 * 3_600 - Double(index % 11) * 600)
            let question = try InformationDesk.render("\(body)\n\n(demo data)")
            let threadID = try await repository.insertThread(
                title: title,
                body: question,
                authorMemberID: asker,
                isAnonymous: index % 4 == 1,
                now: asked,
                on: db
            )
            let waiting = index >= count - 12 || index % 9 == 4
            guard !waiting else { continue }
            var replyIDs: [Int64] = []
            let answerCount = 1 + index % 3
            for answer in 0..<answerCount {
                let when = asked.addingTimeInterval(Double(answer + 1) * 2_700)
                let text = topic.answers[(index + answer) % topic.answers.count]
                let author = staff[(index + answer) % staff.count]
                replyIDs.append(
                    try await repository.insertReply(threadID: threadID, author: author, body: try InformationDesk.render(text), now: when, on: db)
                )
            }
            if index % 5 == 0 {
                let thanks = members[(index * 7) % members.count]
                _ = try await repository.insertReply(
                    threadID: threadID,
                    author: .member(id: thanks, pseudonym: "", avatar: .memberDefault),
                    body: try InformationDesk.render("Thank you, this really helps."),
                    now: asked.addingTimeInterval(20_000),
                    on: db
                )
            }
            if index % 2 == 0, let accepted = replyIDs.first {
                try await repository.setAcceptedReply(threadID: threadID, replyID: accepted, now: asked.addingTimeInterval(21_000), on: db)
            }
            if index % 23 == 3 {
                let flaggers = members.filter { $0 != asker }.prefix(index % 46 == 3 ? 1 : 2)
                for (offset, member) in flaggers.enumerated() {
                    _ = try await repository.addFlag(
                        .question(threadID),
                        threadID: threadID,
                        memberID: member,
                        reason: Self.flagReasons[(index + offset) % Self.flagReasons.count],
                        now: asked.addingTimeInterval(30_000),
                        on: db
                    )
                }
            }
        }
    }

    private static func fill(_ template: String, index: Int) -> String {
        template
            .replacingOccurrences(of: "{med}", with: medicines[(index / 3) % medicines.count])
            .replacingOccurrences(of: "{stage}", with: stages[(index / 2) % stages.count])
    }
}

extension DemoData {
    static let threadCount = 250

    /// The demo threads, asked by the demo members and answered by the demo administrator and medical professional.
    func seedDesk(on db: any SQLDatabase) async throws {
        var everyone = MemberListQuery()
        everyone.page = PageRequest(number: 1, size: 200)
        let memberIDs = try await MemberRepository().list(everyone, on: db).items.map(\.id)
        let deskStaff = staff.filter { $0.role != .physician }.map(\.deskAuthor)
        try await DemoDesk(now: now, repository: DeskRepository(engine: engine))
            .seed(count: Self.threadCount, members: memberIDs, staff: deskStaff, on: db)
    }
}
