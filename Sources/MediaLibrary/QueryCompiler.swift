import Foundation
import GRDB

/// Turns a `QueryExpression` into an SQL condition with its values as parameters — never pasted
/// into the SQL text, so a title holding quotes or SQL is just text — checking every field name,
/// operator and value type against the fields of what is queried.
struct QueryCompiler {
    let fields: [LibraryField]

    /// An SQL condition and its arguments, in order.
    struct Fragment {
        var sql: String
        var arguments: [DatabaseValue]
    }

    func field(named name: String, at position: Int) throws(QueryError) -> LibraryField {
        guard let field = fields.first(where: { $0.name == name.lowercased() }) else {
            throw QueryError(message: "unknown field '\(name)'", position: position, fields: fields.map(\.name))
        }
        return field
    }

    func compile(_ expression: QueryExpression) throws(QueryError) -> Fragment {
        switch expression {
        case .and(let left, let right): return try join(left, "AND", right)
        case .or(let left, let right): return try join(left, "OR", right)
        case .not(let inner):
            let fragment = try compile(inner)
            return Fragment(sql: "NOT (\(fragment.sql))", arguments: fragment.arguments)
        case .condition(let name, let op, let value, let position):
            let field = try field(named: name, at: position)
            return try condition(field, op, value, position: position)
        }
    }

    /// Whether `expression` names `field` anywhere.
    static func mentions(_ expression: QueryExpression, field: String) -> Bool {
        switch expression {
        case .and(let left, let right), .or(let left, let right): return mentions(left, field: field) || mentions(right, field: field)
        case .not(let inner): return mentions(inner, field: field)
        case .condition(let name, _, _, _): return name == field
        }
    }

    private func join(_ left: QueryExpression, _ op: String, _ right: QueryExpression) throws(QueryError) -> Fragment {
        let l = try compile(left), r = try compile(right)
        return Fragment(sql: "(\(l.sql)) \(op) (\(r.sql))", arguments: l.arguments + r.arguments)
    }

    private func condition(_ field: LibraryField, _ op: QueryOperator?, _ value: QueryValue?, position: Int) throws(QueryError) -> Fragment {
        guard let op, let value else {
            guard field.kind == .flag else {
                let example = field.kind == .number ? "\(field.name) > 0" : "\(field.name) contains \"…\""
                throw QueryError(message: "'\(field.name)' is not a yes/no field; compare it, e.g. \(example)", position: position, fields: [])
            }
            return flag(field, true)
        }
        switch field.kind {
        case .flag:
            let yes = ["1", "true", "yes"].contains(value.text.lowercased()), no = ["0", "false", "no"].contains(value.text.lowercased())
            guard (op == .equal || op == .notEqual) && (yes || no) else {
                throw QueryError(message: "'\(field.name)' is yes or no: write '\(field.name)' or 'not \(field.name)'", position: position, fields: [])
            }
            return flag(field, yes == (op == .equal))
        case .number:
            guard op != .contains else {
                throw QueryError(message: "'contains' needs a text field; '\(field.name)' is a number", position: position, fields: [])
            }
            guard let number = value.number else {
                throw QueryError(message: "'\(field.name)' is a number, not '\(value.text)'", position: value.position, fields: [])
            }
            let comparison = "\(op == .notEqual ? "=" : op.rawValue) ?"
            return matching(field, numberSQL: comparison, op: op, argument: number.databaseValue)
        case .text:
            switch op {
            case .equal, .notEqual:
                return matching(field, textSQL: "seqplay_fold(%@) = seqplay_fold(?)", op: op, argument: value.text.databaseValue)
            case .contains:
                return matching(field, textSQL: "instr(seqplay_fold(%@), seqplay_fold(?)) > 0", op: op, argument: value.text.databaseValue)
            default:
                throw QueryError(message: "'\(op.rawValue)' compares numbers; '\(field.name)' is text (use =, != or contains)", position: position, fields: [])
            }
        }
    }

    private func flag(_ field: LibraryField, _ wanted: Bool) -> Fragment {
        guard case .column(let sql) = field.storage else { preconditionFailure("flags are columns") }
        return Fragment(sql: "COALESCE(\(sql), 0) = \(wanted ? 1 : 0)", arguments: [])
    }

    /// A number condition: `column op ?`, or for a many-valued field, that one of its values satisfies
    /// it; `!=` is "not equal" for a column and "none equal" for a many-valued field.
    private func matching(_ field: LibraryField, numberSQL: String, op: QueryOperator, argument: DatabaseValue) -> Fragment {
        switch field.storage {
        case .column(let sql):
            let condition = "\(sql) \(numberSQL)"
            return Fragment(sql: op == .notEqual ? "NOT COALESCE(\(condition), 0)" : condition, arguments: [argument])
        case .values(let name):
            return exists(name, "v.number \(numberSQL)", negated: op == .notEqual, argument)
        }
    }

    /// A text condition, `template` with `%@` standing for the value's SQL.
    private func matching(_ field: LibraryField, textSQL template: String, op: QueryOperator, argument: DatabaseValue) -> Fragment {
        switch field.storage {
        case .column(let sql):
            let condition = template.replacingOccurrences(of: "%@", with: sql)
            return Fragment(sql: op == .notEqual ? "NOT COALESCE(\(condition), 0)" : condition, arguments: [argument])
        case .values(let name):
            return exists(name, template.replacingOccurrences(of: "%@", with: "v.value"), negated: op == .notEqual, argument)
        }
    }

    private func exists(_ name: String, _ condition: String, negated: Bool, _ argument: DatabaseValue) -> Fragment {
        Fragment(sql: "\(negated ? "NOT " : "")EXISTS (SELECT 1 FROM song_values v WHERE v.file_id = f.id AND v.field = ? AND \(condition))",
                 arguments: [name.databaseValue, argument])
    }
}
