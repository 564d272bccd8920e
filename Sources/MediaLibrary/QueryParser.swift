/// Parses the query language a musician writes after `--where`:
///
///     duration < 180 and time_signature = 3/4 and instrument = "Fretless Bass"
///     (family = "Strings" or drums) and not title contains 'waltz'
///
/// Conditions are `field op value` (`=`, `!=`, `<`, `<=`, `>`, `>=`, `contains`) or a flag field
/// alone; `not` binds tighter than `and`, which binds tighter than `or`; parentheses group. Values
/// are numbers, fractions (`3/4`), words, or text in double or single quotes (a backslash escapes
/// the next character). Field names are checked later, against the fields of what is queried.
public struct QueryParser {
    private enum Token: Equatable {
        case word(String)
        case number(String)
        case text(String)
        case symbol(String)
        case end
    }

    private var tokens: [(token: Token, position: Int)] = []
    private var index = 0
    private let fields: [String]

    /// Parses `source`; `fields` are named in errors.
    public static func parse(_ source: String, fields: [String]) throws(QueryError) -> QueryExpression {
        var parser = QueryParser(fields: fields)
        parser.tokens = try tokenize(Array(source), fields: fields)
        let expression = try parser.expression()
        guard case .end = parser.current.token else { throw parser.error("expected 'and', 'or' or the end of the query") }
        return expression
    }

    private init(fields: [String]) { self.fields = fields }

    private var current: (token: Token, position: Int) { tokens[index] }

    private func error(_ message: String, fields: [String] = []) -> QueryError {
        QueryError(message: "\(message), found \(Self.describe(current.token))", position: current.position, fields: fields)
    }

    private static func describe(_ token: Token) -> String {
        switch token {
        case .word(let word): return "'\(word)'"
        case .number(let number): return number
        case .text(let text): return "\"\(text)\""
        case .symbol(let symbol): return "'\(symbol)'"
        case .end: return "the end of the query"
        }
    }

    private func isKeyword(_ keyword: String) -> Bool {
        if case .word(let word) = current.token { return word.lowercased() == keyword }
        return false
    }

    /// The joining keywords, loosest first (`or` joins `and`s); each joins from the left.
    private static let joins: [(keyword: String, join: @Sendable (QueryExpression, QueryExpression) -> QueryExpression)] = [
        ("or", { .or($0, $1) }), ("and", { .and($0, $1) }),
    ]

    /// Operands joined by the keyword of `joins[level]`, each operand the next level's (past the last: `unary`).
    private mutating func expression(level: Int = 0) throws(QueryError) -> QueryExpression {
        guard level < Self.joins.count else { return try unary() }
        var left = try expression(level: level + 1)
        while isKeyword(Self.joins[level].keyword) {
            index += 1
            left = Self.joins[level].join(left, try expression(level: level + 1))
        }
        return left
    }

    private mutating func unary() throws(QueryError) -> QueryExpression {
        if isKeyword("not") {
            index += 1
            return .not(try unary())
        }
        if current.token == .symbol("(") {
            index += 1
            let inner = try expression()
            guard current.token == .symbol(")") else { throw error("expected ')'") }
            index += 1
            return inner
        }
        return try condition()
    }

    private mutating func condition() throws(QueryError) -> QueryExpression {
        guard case .word(let field) = current.token, !["and", "or", "not", "contains"].contains(field.lowercased()) else {
            throw error("expected a field name", fields: fields)
        }
        let position = current.position
        index += 1
        let op: QueryOperator
        switch current.token {
        case .symbol(let symbol) where ["=", "==", "!=", "<>", "<", "<=", ">", ">="].contains(symbol):
            op = symbol == "==" ? .equal : symbol == "<>" ? .notEqual : QueryOperator(rawValue: symbol)!
        case .word(let word) where word.lowercased() == "contains":
            op = .contains
        default:
            return .condition(field: field.lowercased(), op: nil, value: nil, position: position)
        }
        index += 1
        let valuePosition = current.position
        let value: QueryValue
        switch current.token {
        case .number(let number):
            value = QueryValue(text: number, number: Double(number), position: valuePosition)
        case .text(let text):
            value = QueryValue(text: text, number: nil, position: valuePosition)
        case .word(let word) where !["and", "or", "not", "contains"].contains(word.lowercased()):
            value = QueryValue(text: word, number: nil, position: valuePosition)
        default:
            throw error("expected a value after '\(op.rawValue)'")
        }
        index += 1
        return .condition(field: field.lowercased(), op: op, value: value, position: position)
    }

    /// The tokens of `characters`, each with its 1-based position, ending with `.end`.
    private static func tokenize(_ characters: [Character], fields: [String]) throws(QueryError) -> [(token: Token, position: Int)] {
        var tokens: [(token: Token, position: Int)] = []
        var i = 0
        func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" || c == "-" || c == "." }
        while i < characters.count {
            let c = characters[i], start = i + 1
            if c.isWhitespace {
                i += 1
            } else if c == "\"" || c == "'" {
                var text = ""
                i += 1
                while i < characters.count && characters[i] != c {
                    if characters[i] == "\\" && i + 1 < characters.count { i += 1 }
                    text.append(characters[i])
                    i += 1
                }
                guard i < characters.count else {
                    throw QueryError(message: "text opened with \(c) is not closed", position: start, fields: [])
                }
                i += 1
                tokens.append((.text(text), start))
            } else if c.isNumber || (c == "-" && i + 1 < characters.count && characters[i + 1].isNumber) {
                var text = String(c)
                i += 1
                while i < characters.count && (characters[i].isNumber || characters[i] == ".") { text.append(characters[i]); i += 1 }
                if i < characters.count && characters[i] == "/" && i + 1 < characters.count && characters[i + 1].isNumber {
                    text.append("/")
                    i += 1
                    while i < characters.count && characters[i].isNumber { text.append(characters[i]); i += 1 }
                    tokens.append((.text(text), start))
                } else if Double(text) != nil {
                    tokens.append((.number(text), start))
                } else {
                    throw QueryError(message: "'\(text)' is not a number", position: start, fields: [])
                }
            } else if c.isLetter || c == "_" {
                var word = ""
                while i < characters.count && isWordCharacter(characters[i]) { word.append(characters[i]); i += 1 }
                tokens.append((.word(word), start))
            } else if "<>!=".contains(c) {
                var symbol = String(c)
                i += 1
                if i < characters.count && (characters[i] == "=" || (c == "<" && characters[i] == ">")) { symbol.append(characters[i]); i += 1 }
                guard symbol != "!" else { throw QueryError(message: "'!' must be followed by '=' (or use 'not')", position: start, fields: []) }
                tokens.append((.symbol(symbol), start))
            } else if c == "(" || c == ")" {
                tokens.append((.symbol(String(c)), start))
                i += 1
            } else {
                throw QueryError(message: "unexpected character '\(c)'", position: start, fields: [])
            }
        }
        tokens.append((.end, characters.count + 1))
        return tokens
    }
}
