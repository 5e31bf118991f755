import Foundation
import PortalPlatform
import SQLKit
import SafeHTML

/// Demo learning content for `seed-demo`: three published modules (one with a quiz), one draft, and a
/// video link. Every summary and description says it is demo content; the video's address is an example.
enum LearningDemo {
    static func seed(_ demo: DemoData, on db: any SQLDatabase) async throws {
        let content = LearningContentRepository()
        let videoID = try await content.save(
            LearningVideo(
                id: 0,
                title: "Safe sleep for your baby",
                description: "Demo entry: an example video link. How to lay your baby down to sleep: on the back, in their own cot, in your room.",
                category: "Caring for your baby",
                lengthSeconds: 4 * 60 + 30,
                source: .link("https://videos.example.org/demo/safe-sleep"),
                stage: .trimester(3),
                status: .published
            ),
            now: demo.now,
            on: db
        )
        let modules: [(String, String, String, String, LearningStage, LearningStatus, Int64?, [ModuleLink])] = [
            (
                "Eating well in pregnancy", "Demo module: what to eat more of, what to avoid, and why folic acid matters.", "Nutrition",
                """
                ## What helps
                - Fruit and vegetables every day
                - Starchy foods like bread, rice and potatoes
                - Protein: beans, eggs, fish, meat

                ## What to avoid
                - Alcohol: no amount is known to be safe in pregnancy
                - Raw or undercooked meat and eggs

                Take **folic acid** every day until week 12. Ask your clinic if you are unsure about a food.
                """, .trimester(1), .published, nil,
                [ModuleLink(title: "Healthy eating in pregnancy (NHS)", url: "https://www.nhs.uk/pregnancy/keeping-well/have-a-healthy-diet/")]
            ),
            (
                "Your baby's movements", "Demo module: when you will feel movements, and when to call your midwife.", "Your pregnancy",
                """
                Most women feel their baby move between weeks 16 and 24. Get to know your baby's own pattern.

                **If movements slow down or change, call your midwife or maternity unit straight away**, day or night. Do not wait until the next day.
                """, .weeks(16, 42), .published, nil, []
            ),
            (
                "Getting ready for your baby", "Demo module: safe sleep, feeding and what to have at home.", "Caring for your baby",
                """
                A few things to have ready: a cot or moses basket with a firm, flat mattress, clothes and nappies, and a car seat if you travel by car.

                Watch the safe sleep video with this module.
                """, .trimester(3), .published, videoID, []
            ),
            (
                "Recovery support after birth", "Demo module (draft): not shown to members until it is published.", "Recovery",
                """
                Draft text about keeping up treatment and support after your baby is born.
                """, .all, .draft, nil, []
            )
        ]
        var ids: [Int64] = []
        for (position, module) in modules.enumerated() {
            let html = try SafeHTML.renderMarkdown(module.3).html
            ids.append(
                try await content.save(
                    LearningModule(
                        id: 0,
                        title: module.0,
                        summary: module.1,
                        bodySource: module.3,
                        bodyHTML: html,
                        category: module.2,
                        stage: module.4,
                        position: position,
                        status: module.5,
                        videoID: module.6,
                        links: module.7,
                        publishedAt: nil,
                        updatedAt: demo.now
                    ),
                    now: demo.now,
                    on: db
                ).id
            )
        }
        let questions: [(String, [(String, Bool)], String)] = [
            (
                "Until which week is folic acid recommended every day?", [("Week 4", false), ("Week 12", true), ("Week 40", false)],
                "Folic acid helps the baby's spine develop in the first weeks, so it is taken every day until week 12."
            ),
            (
                "Which of these are good sources of protein?", [("Beans", true), ("Eggs", true), ("Fizzy drinks", false)],
                "Beans, eggs, fish and meat all give protein. Fizzy drinks give sugar but no protein."
            )
        ]
        for question in questions {
            _ = try await content.save(
                QuizQuestion(
                    id: 0,
                    moduleID: ids[0],
                    prompt: question.0,
                    explanation: question.2,
                    choices: question.1.map { QuizQuestion.Choice(id: 0, text: $0.0, isCorrect: $0.1) }
                ),
                now: demo.now,
                on: db
            )
        }
    }
}
