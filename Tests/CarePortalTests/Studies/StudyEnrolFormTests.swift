import Foundation
import Testing
@testable import CarePortal
@testable import PortalPlatform

@Suite struct StudyEnrolFormTests {
    let today = CalendarDate(iso: "2027-03-27")!

    @Test func aCompleteFormIsAnEnrolmentWithEmptyOptionalFieldsLeftOut() {
        // setup
        var form = StudyEnrolForm(today: today)
        form.studyCode = "NU-017"
        // MUT
        let (enrolment, errors, dateProblem) = form.validated()
        // validate
        #expect(errors.isEmpty)
        #expect(dateProblem == nil)
        #expect(enrolment?.studyCode == "NU-017")
        #expect(enrolment?.username == "nu-017")
        #expect(enrolment?.arm == nil)
        #expect(enrolment?.email == nil)
        #expect(enrolment?.enrolledOn == today)
        #expect(enrolment?.login == .password)
    }

    @Test func anEmailedClaimTokenNeedsHerEmailAddress() {
        var form = StudyEnrolForm(today: today)
        form.studyCode = "NU-017"
        form.login = StudyLogin.email.rawValue
        let (enrolment, errors, _) = form.validated()
        #expect(enrolment == nil)
        #expect(errors["email"] == "Enter her email address to send her a claim token, or choose a one-time password")
    }

    @Test func everyProblemIsFoundAtOnceWithTheDatesPartsMarked() {
        var form = StudyEnrolForm(today: today)
        form.studyCode = ""
        form.arm = String(repeating: "a", count: StudyRules.armMaximumLength + 1)
        form.login = "carrier pigeon"
        form.enrolledOn = DateInputValue(day: "31", month: "2", year: "2027")
        let (enrolment, errors, dateProblem) = form.validated()
        #expect(enrolment == nil)
        #expect(dateProblem != nil)
        #expect(errors["study_code"] != nil)
        #expect(errors["arm"] == "Arm or group must be \(StudyRules.armMaximumLength) characters or fewer")
        #expect(errors["login-password"] == "Choose how she gets her login for the app")
        #expect(errors.items.count == 4)
    }
}
