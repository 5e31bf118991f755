import Foundation
import PortalPlatform
import Testing

@testable import CarePortal

/// The learning centre's forms, without HTTP: what a typed form makes, and each problem beside its field.
@Suite struct LearningFormsTests {
    private static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aModuleFormMakesTheModuleItDescribesAndTrimsItsLines() throws {
        let form = LearningModuleForm(sent: [
            "title": "  Sleep  ", "category": " Rest ", "position": " 3 ", "summary": "Rest when you can.", "body": "Lie on your **left** side.",
            "links": "", "stage": "weeks", "week_from": " 20", "week_to": "30 ", "status": "published", "video_id": "", "after_negative": "yes"
        ])
        let (made, errors) = form.module(existing: nil, videos: [], now: Self.now)
        let module = try #require(made)
        #expect(errors.isEmpty)
        #expect(module.title == "Sleep" && module.category == "Rest" && module.position == 3)
        #expect(module.stage == .weeks(20, 30) && module.status == .published && module.moodGroups == [.negative])
        #expect(module.bodyHTML.contains("<strong>left</strong>"))
        #expect(form.values["title"] == "Sleep", "the page shown again keeps the trimmed value")
    }

    @Test func aModuleFormReportsEveryProblemBesideItsFieldAndMakesNothing() {
        let form = LearningModuleForm(sent: ["position": "ten", "stage": "weeks", "week_from": "30", "week_to": "20", "video_id": "9"])
        let (made, errors) = form.module(existing: nil, videos: [], now: Self.now)
        #expect(made == nil)
        #expect(errors["title"] != nil && errors["category"] != nil && errors["summary"] != nil)
        #expect(errors["position"] == "Enter the order as a whole number from 0 to 9999")
        #expect(errors["video_id"] == "Choose a video from the list")
        #expect(errors["week_to"] == "The last week must be the same as or after the first week")
        #expect(errors["status"] == "Choose a status")
    }

    @Test func aModuleFilledInAndSentAgainIsTheSameModule() throws {
        let (made, _) = LearningModuleForm(sent: [
            "title": "Feeding", "category": "Baby", "position": "1", "summary": "How often.", "body": "Every three hours.",
            "links": "NHS advice | https://www.nhs.uk", "stage": "trimester_3", "status": "draft"
        ])
        .module(existing: nil, videos: [], now: Self.now)
        let module = try #require(made)
        let (again, errors) = LearningModuleForm(sent: LearningModuleForm(module).values).module(existing: module, videos: [], now: Self.now)
        #expect(errors.isEmpty)
        #expect(again == module)
    }

    @Test func aQuestionNeedsTwoAnswersAndATickedOneAndForgetsTheTickOfAnEmptyAnswer() throws {
        var form = QuizQuestionForm(sent: ["prompt": "When?", "choice_1": "Now", "correct_2": "yes", "explanation": ""])
        let (none, errors) = form.question(moduleID: 4, existing: nil)
        #expect(none == nil)
        #expect(errors["choices"] == "Enter at least two answers")
        #expect(form.values["correct_2"] == nil, "the page shown again does not tick an answer that has no text")

        var right = QuizQuestionForm(sent: ["prompt": " When? ", "choice_1": "Now", "choice_2": "Later", "correct_2": "yes", "explanation": "Soon."])
        let (made, none2) = right.question(moduleID: 4, existing: nil)
        let question = try #require(made)
        #expect(none2.isEmpty)
        #expect(question.prompt == "When?" && question.moduleID == 4 && question.choices.map(\.isCorrect) == [false, true])
    }

    @Test func aVideoIsALinkOrItsFileAndAFileLeftOutKeepsTheOneItHad() throws {
        let link = LearningVideoForm(
            sent: [
                "title": "Bathing", "description": "Warm water.", "category": "Baby", "length": "4:30", "source": "link",
                "url": "https://example.org/v", "status": "published"
            ],
            asksStage: false
        )
        let (video, errors) = link.video(existing: nil, upload: nil, uploadedSize: 0)
        #expect(errors.isEmpty)
        #expect(try #require(video).source == .link("https://example.org/v") && video?.stage == .all && video?.lengthSeconds == 270)

        let noFile = LearningVideoForm(
            sent: ["title": "Bathing", "description": "Warm water.", "category": "Baby", "length": "4:30", "source": "file", "status": "draft"],
            asksStage: false
        )
        #expect(noFile.video(existing: nil, upload: nil, uploadedSize: 0).1["file"] == "Choose the video file")
        let stored = StoredUpload(fileName: "a.mp4", type: .mp4)
        let existing = LearningVideo(
            id: 7,
            title: "Old",
            description: "",
            category: "Baby",
            lengthSeconds: 60,
            source: .file(stored, size: 10),
            stage: .all,
            status: .draft
        )
        let (kept, none) = noFile.video(existing: existing, upload: nil, uploadedSize: 0)
        #expect(none.isEmpty)
        #expect(kept?.source == existing.source && kept?.id == 7)
    }
}
