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
