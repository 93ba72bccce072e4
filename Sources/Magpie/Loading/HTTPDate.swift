public import Foundation
import Synchronization

/// HTTP dates (RFC 9110 5.6.7): written as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), read
/// in that form and the two obsolete ones a recipient must accept (RFC 850 and asctime).
public enum HTTPDate {
    private static let forms = ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    /// The date `text` names, `nil` when it is none of the three forms.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = IMFFixdate.parse(trimmed) { return date }
        return formatters.withLock { formatters in
            for formatter in formatters {
                if let date = formatter.date(from: trimmed) { return date }
            }
            return nil
        }
    }

    /// `date` as IMF-fixdate.
    public static func format(_ date: Date) -> String {
        if let text = IMFFixdate.format(date) { return text }
        return formatters.withLock { $0[0].string(from: date) }
    }

    // Every download reads its response's Date header: IMF-fixdate, the form servers send, is
    // read and written by `IMFFixdate` without ICU (whose parse was a per-request cost in the
    // proxy's profile, issue 38). The formatters read the obsolete forms and whatever
    // `IMFFixdate` leaves to them; made once and used under a lock rather than trusting
    // DateFormatter to be safe between threads.
    private static let formatters = Mutex(forms.map(formatter))

    private static func formatter(_ form: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = form
        return formatter
    }
}

/// RFC 9110's preferred date form, `Sun, 06 Nov 1994 08:49:37 GMT`, read and written by
/// arithmetic on the proleptic Gregorian calendar. Anything it cannot be sure of (another
/// form, a day the month does not have, a leap second, a year before 1600, when Foundation's
/// calendar still counts in Julian days, or after 9999) it leaves to
/// ``HTTPDate``'s formatters, so it only ever agrees with them.
enum IMFFixdate {
    private static let weekdays: [[UInt8]] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].map { Array($0.utf8) }
    private static let months: [[UInt8]] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }

    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            // "Www, DD Mon YYYY HH:MM:SS GMT"
            guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
                bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
                bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "),
                bytes[26] == UInt8(ascii: "G"), bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T"),
                let weekday = weekdays.firstIndex(where: { matches($0, bytes, at: 0) }),
                let monthIndex = months.firstIndex(where: { matches($0, bytes, at: 8) }),
                let day = digits(bytes, 5, 2), let year = digits(bytes, 12, 4), let hour = digits(bytes, 17, 2),
                let minute = digits(bytes, 20, 2), let second = digits(bytes, 23, 2),
                year >= 1600, (1...daysIn(month: monthIndex + 1, year: year)).contains(day), hour < 24, minute < 60, second < 60
            else { return nil }
            let days = daysSinceEpoch(year: year, month: monthIndex + 1, day: day)
            guard weekday == dayOfWeek(daysSinceEpoch: days) else { return nil }
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
        }
    }

    static func format(_ date: Date) -> String? {
        let interval = date.timeIntervalSince1970.rounded(.down)
        // Years 1600...9999.
        guard interval.isFinite, interval >= -11_676_096_000, interval < 253_402_300_800 else { return nil }
        let seconds = Int(interval)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let inDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDaysSinceEpoch: days)
        let weekday = dayOfWeek(daysSinceEpoch: days)
        var text = [UInt8]()
        text.reserveCapacity(29)
        text += weekdays[weekday]
        text += Array(", ".utf8)
        append(day, width: 2, to: &text)
        text.append(UInt8(ascii: " "))
        text += months[month - 1]
        text.append(UInt8(ascii: " "))
        append(year, width: 4, to: &text)
        text.append(UInt8(ascii: " "))
        append(inDay / 3_600, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(inDay / 60 % 60, width: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(inDay % 60, width: 2, to: &text)
        text += Array(" GMT".utf8)
        return String(decoding: text, as: UTF8.self)
    }

    private static func matches(_ word: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        word.indices.allSatisfy { bytes[offset + $0] == word[$0] }
    }

    private static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int? {
        var value = 0
        for index in offset..<(offset + count) {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func append(_ value: Int, width: Int, to text: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    // 1970-01-01 was a Thursday; Sunday is 0.
    private static func dayOfWeek(daysSinceEpoch days: Int) -> Int {
        ((days % 7) + 7 + 4) % 7
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Days from 1970-01-01 to a civil date, and back, counting in 400-year eras of 146,097 days
    // from a year that starts in March (so February's leap day ends it).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDaysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
