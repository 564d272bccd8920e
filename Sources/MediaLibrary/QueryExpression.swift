/// A parsed `--where` expression: conditions on fields joined by `and`, `or` and `not`.
public indirect enum QueryExpression: Sendable, Equatable {
    /// `field op value`, or a flag field alone (`drums`: `op` is nil).
    case condition(field: String, op: QueryOperator?, value: QueryValue?, position: Int)
    case not(QueryExpression)
    case and(QueryExpression, QueryExpression)
    case or(QueryExpression, QueryExpression)
}

/// A comparison of the query language.
public enum QueryOperator: String, Sendable, Equatable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case contains
}

/// A value written in a query: its text as written (quotes removed), a number when it reads as one,
/// and where it starts.
public struct QueryValue: Sendable, Equatable {
    public var text: String
    public var number: Double?
    public var position: Int
}

/// A mistake in a query: what is wrong, the 1-based character position where it is, and the fields
/// that could have been meant.
public struct QueryError: Error, Equatable, CustomStringConvertible, Sendable {
    public var message: String
    public var position: Int
    public var fields: [String]

    public var description: String {
        "\(message) at character \(position)" + (fields.isEmpty ? "" : "; fields: " + fields.joined(separator: ", "))
    }
}
