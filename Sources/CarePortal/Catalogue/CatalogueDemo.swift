import Foundation
import PortalPlatform
import SQLKit

extension DemoData {
    /// A realistic Parkinson's catalogue: medications and their doses, illustrated exercises, frequencies and amounts.
    func seedCatalogue(on db: any SQLDatabase) async throws {
        let repository = CatalogueRepository()
        let medications: [(String, [String], String)] = [
            (
                "Levodopa/carbidopa", ["10/100 mg tablet", "25/100 mg tablet", "25/250 mg tablet", "50/200 mg extended-release tablet"],
                "Levodopa is turned into dopamine in the brain; carbidopa stops it breaking down before it gets there. Take it 30 to 60 minutes before a meal, because protein in food can stop it working as well."
            ),
            (
                "Pramipexole", ["0.125 mg tablet", "0.25 mg tablet", "0.5 mg tablet", "1 mg tablet"],
                "A dopamine agonist: it acts like dopamine in the brain. It can make you sleepy without warning, so do not drive if you feel drowsy."
            ),
            (
                "Ropinirole", ["0.25 mg tablet", "1 mg tablet", "2 mg tablet", "8 mg prolonged-release tablet"],
                "A dopamine agonist taken with food to ease nausea. Tell your physician about any urges you find hard to control."
            ),
            (
                "Rasagiline", ["0.5 mg tablet", "1 mg tablet"],
                "An MAO-B inhibitor: it helps the brain's own dopamine last longer. Take it once a day, at the same time each day."
            ),
            ("Selegiline", ["5 mg tablet"], "An MAO-B inhibitor taken in the morning, as it can make it hard to sleep if taken late."),
            ("Entacapone", ["200 mg tablet"], "Taken with each dose of levodopa to make it last longer and smooth out wearing-off."),
            ("Amantadine", ["100 mg capsule"], "Helps with involuntary movements (dyskinesia). Take the last dose before mid-afternoon."),
            (
                "Rotigotine patch", ["2 mg/24 h patch", "4 mg/24 h patch", "6 mg/24 h patch", "8 mg/24 h patch"],
                "A skin patch that releases a dopamine agonist over 24 hours. Put each new patch on a different place on your skin."
            )
        ]
        for (name, doses, description) in medications {
            _ = try await repository.createMedication(name: name, doses: doses, description: description, now: now, on: db)
        }
        let exercises: [(String, String, String)] = [
            (
                "Walking", "walking",
                "Walk at a comfortable pace, taking long steps and swinging your arms. Look ahead, not at your feet. Have a chair or a wall nearby to rest on."
            ),
            (
                "Arm raises", "arm-raises",
                "Stand or sit up straight. Raise both arms in front of you and up above your head, then lower them slowly. Breathe out as you lift."
            ),
            (
                "Sit-to-stand", "sit-to-stand",
                "Sit near the front of a firm chair with your feet under your knees. Lean forward, push through your heels and stand up tall, then sit down slowly."
            ),
            (
                "Balance practice", "balance-practice",
                "Stand beside a kitchen counter, holding it lightly. Lift one foot and hold for ten seconds, then the other. Let go only when you feel steady."
            ),
            (
                "Heel-to-toe walking", "heel-to-toe",
                "Walk along a wall, putting the heel of one foot right in front of the toes of the other, as if on a tightrope. Touch the wall if you need to."
            ),
            (
                "Seated marching", "seated-marching",
                "Sit up straight in a firm chair and lift your knees in turn, as if marching, while swinging your arms."
            ),
            ("Finger tapping", "finger-tapping", "Tap each fingertip to your thumb in turn, as fast and as big as you can, then do the other hand."),
            (
                "Wall push-ups", "wall-push-ups",
                "Stand an arm's length from a wall with your hands flat on it. Bend your elbows to bring your chest to the wall, then push back."
            )
        ]
        let store = uploads(IllustrationStore.folder)
        for (name, picture, description) in exercises {
            let id = try await repository.createExercise(name: name, description: description, now: now, on: db)
            if let url = Bundle.module.url(forResource: picture, withExtension: "png", subdirectory: "demo-illustrations"),
                let data = FileManager.default.contents(atPath: url.path),
                case .success(let type) = CatalogueRules.illustration(Array(data))
            {
                try await repository.setIllustration(exerciseID: id, try await store.save(Array(data), type: type, on: db), now: now, on: db)
            }
        }
        let frequencies: [(String, Int, Int)] = [
            ("Once daily", 1, 1), ("Twice daily", 2, 1), ("Three times daily", 3, 1), ("Every 8 hours", 3, 1), ("Four times daily", 4, 1),
            ("Every other day", 1, 2), ("Weekly", 1, 7)
        ]
        for (name, times, days) in frequencies {
            _ = try await repository.createFrequency(name: name, timesPerDay: times, everyDays: days, now: now, on: db)
        }
        for amount in ["5 repetitions", "10 repetitions", "15 repetitions", "20 repetitions", "5 minutes", "10 minutes", "15 minutes", "30 minutes"] {
            _ = try await repository.createAmount(name: amount, now: now, on: db)
        }
    }
}
