import Mustache
import PortalPlatform

// A year's chart is hundreds of bars and a report hundreds of table rows. Encoding each into a
// dictionary (`TemplateValues`, the path every page takes) costs more than naming their values
// directly, so these models answer the template themselves, as does the patient list (measured
// faster this way); the patient and report pages around them are encoded as any other page is.
// `PatientPagesMustacheTests` checks each answers exactly what reflection would.

extension DailyAdherenceChart: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": self.title
        case "titleID": self.titleID
        case "bars": self.bars
        case "nothingDue": self.nothingDue
        case "xTicks": self.xTicks
        case "yTicks": self.yTicks
        case "rows": self.rows
        case "width": self.width
        case "height": self.height
        case "plotLeft": self.plotLeft
        case "plotRight": self.plotRight
        case "plotTop": self.plotTop
        case "plotBottom": self.plotBottom
        case "xAxisTitleX": self.xAxisTitleX
        case "xAxisTitleY": self.xAxisTitleY
        case "yAxisTitleY": self.yAxisTitleY
        default: nil
        }
    }
}

extension DailyAdherenceChart.Bar: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "iso": self.iso
        case "label": self.label
        case "percent": self.percent
        case "done": self.done
        case "scheduled": self.scheduled
        case "x": self.x
        case "y": self.y
        case "width": self.width
        case "height": self.height
        default: nil
        }
    }
}

extension DailyAdherenceChart.NothingDue: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "label": self.label
        case "x": self.x
        case "y": self.y
        default: nil
        }
    }
}

extension DailyAdherenceChart.Tick: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "label": self.label
        case "position": self.position
        default: nil
        }
    }
}

extension DailyAdherenceChart.Row: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "date": self.date
        case "scheduled": self.scheduled
        case "done": self.done
        case "missed": self.missed
        case "notLogged": self.notLogged
        case "percent": self.percent
        default: nil
        }
    }
}

extension ItemAdherenceChart: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": self.title
        case "titleID": self.titleID
        case "bars": self.bars
        case "height": self.height
        case "width": self.width
        case "labelWidth": self.labelWidth
        case "barRight": self.barRight
        case "axisY": self.axisY
        case "axisLabelY": self.axisLabelY
        case "referenceLabelX": self.referenceLabelX
        default: nil
        }
    }
}

extension ItemAdherenceChart.Bar: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "kind": self.kind
        case "percent": self.percent
        case "percentText": self.percentText
        case "scheduled": self.scheduled
        case "done": self.done
        case "missed": self.missed
        case "notLogged": self.notLogged
        case "y": self.y
        case "labelY": self.labelY
        case "width": self.width
        case "valueX": self.valueX
        default: nil
        }
    }
}

extension AdherenceCalendar: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "title": self.title
        case "titleID": self.titleID
        case "monthName": self.monthName
        case "cells": self.cells
        case "headings": self.headings
        case "legend": self.legend
        case "height": self.height
        case "legendY": self.legendY
        case "legendTextY": self.legendTextY
        case "width": self.width
        case "cellWidth": self.cellWidth
        case "cellHeight": self.cellHeight
        case "previousPath": self.previousPath
        case "nextPath": self.nextPath
        default: nil
        }
    }
}

extension AdherenceCalendar.Cell: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "day": self.day
        case "iso": self.iso
        case "label": self.label
        case "percentText": self.percentText
        case "band": self.band
        case "x": self.x
        case "y": self.y
        case "textX": self.textX
        case "dayY": self.dayY
        case "valueY": self.valueY
        default: nil
        }
    }
}

extension AdherenceCalendar.Heading: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "x": self.x
        default: nil
        }
    }
}

extension AdherenceCalendar.LegendItem: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "band": self.band
        case "title": self.title
        case "x": self.x
        case "textX": self.textX
        default: nil
        }
    }
}

extension DraftLink: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "step": self.step
        case "saved": self.saved
        case "path": self.path
        case "discardPath": self.discardPath
        default: nil
        }
    }
}

extension PatientsPage: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "layout": self.layout
        case "isAdministrator": self.isAdministrator
        case "search": self.search
        case "lastNameHeader": self.lastNameHeader
        case "numberHeader": self.numberHeader
        case "rows": self.rows
        case "pagination": self.pagination
        case "isFiltered": self.isFiltered
        case "drafts": self.drafts
        case "draftSummary": self.draftSummary
        case "action": self.action
        case "newPatientPath": self.newPatientPath
        default: nil
        }
    }
}

extension PrescriptionView: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "kind": self.kind
        case "name": self.name
        case "dose": self.dose
        case "frequency": self.frequency
        case "note": self.note
        case "from": self.from
        case "until": self.until
        case "isCurrent": self.isCurrent
        case "illustrationPath": self.illustrationPath
        default: nil
        }
    }
}

extension ActivityRow: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "when": self.when
        case "day": self.day
        case "what": self.what
        case "status": self.status
        default: nil
        }
    }
}

extension PatientReportPage.Row: MustacheParent {
    func child(named name: String) -> Any? {
        switch name {
        case "date": self.date
        case "kind": self.kind
        case "item": self.item
        case "dose": self.dose
        case "frequency": self.frequency
        case "scheduled": self.scheduled
        case "done": self.done
        case "missed": self.missed
        case "notLogged": self.notLogged
        case "adherence": self.adherence
        default: nil
        }
    }
}
