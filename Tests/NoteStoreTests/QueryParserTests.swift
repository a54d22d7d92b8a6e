import Foundation
import NBTestSupport
import XCTest

@testable import NoteStore

/// Expected trees are written by hand; instants come from Foundation's ISO 8601 parser, with the Berlin offsets
/// spelled out, so the oracle is independent of the parser's Calendar arithmetic.
final class QueryParserTests: XCTestCase {
  private let berlin = TimeZone(identifier: "Europe/Berlin")!
  /// Monday 2026-03-30, 12:00 in Berlin (summer time began the day before: Sunday 2026-03-29 had 23 hours).
  private lazy var now = instant("2026-03-30T10:00:00Z")

  private func instant(_ iso: String) -> Date {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.date(from: iso)!
  }

  private func parse(_ text: String, now: Date? = nil) throws(QueryError) -> QueryExpression {
    try QueryParser.parse(text, now: now ?? self.now, timeZone: self.berlin)
  }

  private func assertParses(
    _ text: String, _ expected: QueryExpression, file: StaticString = #filePath, line: UInt = #line
  ) {
    XCTAssertEqual(try parse(text), expected, "'\(text)'", file: file, line: line)
  }

  private func assertFails(
    _ text: String, column: Int, length: Int, _ message: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    do {
      let tree = try parse(text)
      XCTFail("'\(text)' parsed to \(tree)", file: file, line: line)
    } catch {
      XCTAssertEqual(error.query, text, file: file, line: line)
      XCTAssertEqual(error.column, column, "column of '\(text)': \(error)", file: file, line: line)
      XCTAssertEqual(error.length, length, "length of '\(text)': \(error)", file: file, line: line)
      XCTAssertTrue(error.message.contains(message), "'\(error.message)' lacks '\(message)'", file: file, line: line)
    }
  }

  private func word(_ text: String) -> QueryExpression { .text(TextMatch(kind: .word, text: text)) }
  private func prefix(_ text: String) -> QueryExpression { .text(TextMatch(kind: .prefix, text: text)) }
  private func phrase(_ text: String) -> QueryExpression { .text(TextMatch(kind: .phrase, text: text)) }
  private func tag(_ name: String) -> QueryExpression { .filter(.tag(name)) }
  private func updated(_ range: DateRange) -> QueryExpression { .filter(.date(.updated, range)) }
  private func created(_ range: DateRange) -> QueryExpression { .filter(.date(.created, range)) }

  // MARK: Words, phrases, prefixes

  func testEmptyQueryMatchesEverything() {
    assertParses("", .all)
    assertParses("  \t ", .all)
  }

  func testWordsAreAllRequired() {
    assertParses("plan", word("plan"))
    assertParses("plan roadmap", .and([word("plan"), word("roadmap")]))
    assertParses("  plan \t roadmap  q3 ", .and([word("plan"), word("roadmap"), word("q3")]))
  }

  func testWordsKeepCaseDiacriticsAndUnicode() {
    assertParses(
      "Café naïve 東京 🎉 e\u{301}",
      .and([word("Café"), word("naïve"), word("東京"), word("🎉"), word("e\u{301}")]))
    assertParses("ÜBER", word("ÜBER"))
  }

  func testPhrasesAndPrefixes() {
    assertParses("\"exact phrase\"", phrase("exact phrase"))
    assertParses("plan*", prefix("plan"))
    assertParses("\"quarterly plan\" okr*", .and([phrase("quarterly plan"), prefix("okr")]))
    assertParses("\"東京 駅\"", phrase("東京 駅"))
    // Parentheses and keywords inside quotes are text.
    assertParses("\"a (b) OR c\"", phrase("a (b) OR c"))
    // A quote inside a word is a character of the word.
    assertParses("5'11\" tall", .and([word("5'11\""), word("tall")]))
    assertParses("a*b", word("a*b"))
  }

  // MARK: OR, AND, parentheses

  func testOrBindsLooserThanAnd() {
    assertParses("a OR b", .or([word("a"), word("b")]))
    assertParses("a b OR c", .or([.and([word("a"), word("b")]), word("c")]))
    assertParses("a OR b c", .or([word("a"), .and([word("b"), word("c")])]))
    assertParses("a OR b OR c", .or([word("a"), word("b"), word("c")]))
    assertParses("a b OR c d", .or([.and([word("a"), word("b")]), .and([word("c"), word("d")])]))
  }

  func testLowercaseOrIsAWordAndAndIsExplicitAnd() {
    assertParses("a or b", .and([word("a"), word("or"), word("b")]))
    assertParses("a Or b", .and([word("a"), word("Or"), word("b")]))
    assertParses("a AND b", .and([word("a"), word("b")]))
    assertParses("a AND b OR c", .or([.and([word("a"), word("b")]), word("c")]))
    assertParses("a and b", .and([word("a"), word("and"), word("b")]))
    assertParses("\"OR\"", phrase("OR"))
  }

  func testParenthesesGroupAndFlatten() {
    assertParses("(a OR b) c", .and([.or([word("a"), word("b")]), word("c")]))
    assertParses("((a))", word("a"))
    assertParses("(a b) c", .and([word("a"), word("b"), word("c")]))
    assertParses("a (b (c d))", .and([word("a"), word("b"), word("c"), word("d")]))
    assertParses("a OR (b OR (c OR d))", .or([word("a"), word("b"), word("c"), word("d")]))
    assertParses("(a OR b)(c OR d)", .and([.or([word("a"), word("b")]), .or([word("c"), word("d")])]))
    assertParses("a OR(b)", .or([word("a"), word("b")]))
    // A parenthesis always ends a word.
    assertParses("f(x)", .and([word("f"), word("x")]))
  }

  // MARK: Negation

  func testNegation() {
    assertParses("-draft", .not(word("draft")))
    assertParses("-\"old plan\"", .not(phrase("old plan")))
    assertParses("-tag:x", .not(tag("x")))
    assertParses("-#x", .not(tag("x")))
    assertParses("-(a OR b)", .not(.or([word("a"), word("b")])))
    assertParses("plan -draft", .and([word("plan"), .not(word("draft"))]))
    assertParses("-plan*", .not(prefix("plan")))
    // NOT binds tightest.
    assertParses("a -b OR c", .or([.and([word("a"), .not(word("b"))]), word("c")]))
    assertParses("--a", .not(.not(word("a"))))
    // After a `-`, OR and AND are words.
    assertParses("a -OR", .and([word("a"), .not(word("OR"))]))
  }

  func testDashInsideAWordIsPartOfIt() {
    assertParses("e-mail", word("e-mail"))
    assertParses("a- b-", .and([word("a-"), word("b-")]))
    assertParses("-e-mail", .not(word("e-mail")))
    assertParses("(a)-b", .and([word("a"), .not(word("b"))]))
  }

  // MARK: Filters

  func testTagFilter() {
    assertParses("tag:work", tag("work"))
    assertParses("#work", tag("work"))
    assertParses("tag:#work", tag("work"))
    assertParses("TAG:Work/Q3", tag("Work/Q3"))
    assertParses("tag:\"my tag\"", tag("my tag"))
    assertParses("#work plan", .and([tag("work"), word("plan")]))
    // `#` inside a word is text.
    assertParses("C#", word("C#"))
  }

  func testNotebookFilter() {
    assertParses("notebook:work/projects", .filter(.notebook("work/projects")))
    assertParses("notebook:/work/projects/", .filter(.notebook("work/projects")))
    assertParses("Notebook:\"my notes\"", .filter(.notebook("my notes")))
    assertParses("notebook:\"/my notes/x//\"", .filter(.notebook("my notes/x")))
  }

  func testTitleFilter() {
    assertParses("title:plan", .text(TextMatch(kind: .word, text: "plan", field: .title)))
    assertParses("title:plan*", .text(TextMatch(kind: .prefix, text: "plan", field: .title)))
    assertParses("title:\"quarterly plan\"", .text(TextMatch(kind: .phrase, text: "quarterly plan", field: .title)))
    assertParses("TITLE:Ünïcode", .text(TextMatch(kind: .word, text: "Ünïcode", field: .title)))
    assertParses(
      "-title:draft roadmap",
      .and([.not(.text(TextMatch(kind: .word, text: "draft", field: .title))), word("roadmap")]))
  }

  func testPathAndIdFilters() {
    assertParses("path:2026/jan", .filter(.path("2026/jan")))
    assertParses("path:\"my notes/a b\"", .filter(.path("my notes/a b")))
    assertParses("path:/abs", .filter(.path("/abs")))
    assertParses("id:abc", .filter(.id("abc", prefix: false)))
    assertParses("ID:ab*", .filter(.id("ab", prefix: true)))
  }

  func testHasAndIsFilters() {
    assertParses("has:ink", .filter(.hasInk))
    assertParses("HAS:Ink", .filter(.hasInk))
    assertParses("is:conflict", .filter(.isConflict))
    assertParses("-is:conflict has:ink", .and([.not(.filter(.isConflict)), .filter(.hasInk)]))
  }

  func testLinkFilters() {
    assertParses("links-to:roadmap", .filter(.linksTo("roadmap")))
    assertParses("LINKS-TO:\"work/Road map\"", .filter(.linksTo("work/Road map")))
    assertParses("links-to:/Attachments/photo.png", .filter(.linksTo("/Attachments/photo.png")))
    assertParses("Linked-By:plan tag:x", .and([.filter(.linkedBy("plan")), tag("x")]))
    assertParses("-links-to:plan", .not(.filter(.linksTo("plan"))))
    assertParses("related:plan OR mentions:plan", .or([.filter(.related("plan")), .filter(.mentions("plan"))]))
    assertParses("has:unresolved", .filter(.hasUnresolved))
    assertParses("is:orphan", .filter(.isOrphan))
    assertParses("IS:Dead-End -is:orphan", .and([.filter(.isDeadEnd), .not(.filter(.isOrphan))]))
    assertParses(
      "notebook:work (has:unresolved OR links-to:\"a b\")",
      .and([.filter(.notebook("work")), .or([.filter(.hasUnresolved), .filter(.linksTo("a b"))])]))
    // A link filter reaches across notebooks: a query with one refreshes the whole tree, whatever its notebook.
    XCTAssertTrue(try parse("links-to:x").filters.contains(where: \.isLinkFilter))
    XCTAssertFalse(try parse("tag:x has:ink").filters.contains(where: \.isLinkFilter))
  }

  func testLinkFilterErrors() {
    assertFails("links-to:", column: 1, length: 9, "links-to: needs a value")
    assertFails("a linked-by:\"  \"", column: 3, length: 14, "linked-by: needs a value")
    assertFails("has:unresolve", column: 5, length: 9, "has:ink or has:unresolved")
    assertFails("is:deadend", column: 4, length: 7, "is:conflict, is:orphan or is:dead-end")
    // Only the known dashed keys are keys: any other word with a dash before a colon is a word.
    assertParses("re-read:x", word("re-read:x"))
    assertParses("link-to:x", word("link-to:x"))
    XCTAssertEqual(QueryLexer.place(ofFilterValue: "b", in: "tag:a (x OR links-to:b)")?.column, 13)
    XCTAssertEqual(QueryLexer.place(ofFilterValue: "b", in: "tag:a (x OR links-to:b)")?.length, 10)
  }

  func testFiltersCombine() {
    assertParses(
      "roadmap tag:planning -draft",
      .and([word("roadmap"), tag("planning"), .not(word("draft"))]))
    assertParses(
      "notebook:work (tag:urgent OR #blocked)",
      .and([.filter(.notebook("work")), .or([tag("urgent"), tag("blocked")])]))
    assertParses("title:\"a b\"c", .and([.text(TextMatch(kind: .phrase, text: "a b", field: .title)), word("c")]))
  }

  /// Only two or more ASCII letters before the colon make a filter, and an unknown key followed by `/` is a URL.
  func testColonsThatAreNotFiltersAreWords() {
    assertParses("http://example.com/a?b=c", word("http://example.com/a?b=c"))
    assertParses("https://x.org", word("https://x.org"))
    assertParses("12:30", word("12:30"))
    assertParses("a:b", word("a:b"))
    assertParses("C:\\notes", word("C:\\notes"))
    assertParses("東京:駅", word("東京:駅"))
    assertParses("résumé:x", word("résumé:x"))
    assertParses("v2:beta", word("v2:beta"))
    assertParses(":tag", word(":tag"))
    assertParses("meet 10:00 -http://spam", .and([word("meet"), word("10:00"), .not(word("http://spam"))]))
  }

  // MARK: Dates

  func testDayConditionsOnTheDaySummerTimeBegins() {
    let start = instant("2026-03-29T00:00:00+01:00")
    let next = instant("2026-03-30T00:00:00+02:00")
    XCTAssertEqual(next.timeIntervalSince(start), 23 * 3600)
    assertParses("updated:2026-03-29", updated(DateRange(lower: start, upper: next)))
    assertParses("updated:=2026-03-29", updated(DateRange(lower: start, upper: next)))
    assertParses("updated:>2026-03-29", updated(DateRange(lower: next)))
    assertParses("updated:>=2026-03-29", updated(DateRange(lower: start)))
    assertParses("updated:<2026-03-29", updated(DateRange(upper: start)))
    assertParses("updated:<=2026-03-29", updated(DateRange(upper: next)))
    assertParses("CREATED:\"2026-03-29\"", created(DateRange(lower: start, upper: next)))
  }

  func testDayOnWhichSummerTimeEndsHas25Hours() {
    let start = instant("2026-10-25T00:00:00+02:00")
    let next = instant("2026-10-26T00:00:00+01:00")
    XCTAssertEqual(next.timeIntervalSince(start), 25 * 3600)
    assertParses("created:2026-10-25", created(DateRange(lower: start, upper: next)))
  }

  func testRanges() {
    assertParses(
      "created:2026-03-01..2026-03-29",
      created(DateRange(lower: instant("2026-03-01T00:00:00+01:00"), upper: instant("2026-03-30T00:00:00+02:00"))))
    assertParses(
      "created:2026-01-01..2026-01-01",
      created(DateRange(lower: instant("2026-01-01T00:00:00+01:00"), upper: instant("2026-01-02T00:00:00+01:00"))))
    assertParses("created:2026-03-01..", created(DateRange(lower: instant("2026-03-01T00:00:00+01:00"))))
    assertParses("created:..2026-03-29", created(DateRange(upper: instant("2026-03-30T00:00:00+02:00"))))
    assertParses(
      "updated:-7d..today",
      updated(DateRange(lower: instant("2026-03-23T00:00:00+01:00"), upper: instant("2026-03-31T00:00:00+02:00"))))
    assertParses(
      "updated:2026-01-01..2026-01-02T12:00:00Z",
      updated(
        DateRange(
          lower: instant("2026-01-01T00:00:00+01:00"), upper: instant("2026-01-02T12:00:00Z"), upperInclusive: true)))
    assertParses(
      "updated:2026-01-01T10:00:00Z..2026-01-01T10:00:00Z",
      updated(
        DateRange(lower: instant("2026-01-01T10:00:00Z"), upper: instant("2026-01-01T10:00:00Z"), upperInclusive: true)
      ))
  }

  func testRelativeDaysCountFromNowInTheTimeZone() {
    let today = DateRange(lower: instant("2026-03-30T00:00:00+02:00"), upper: instant("2026-03-31T00:00:00+02:00"))
    let yesterday = DateRange(
      lower: instant("2026-03-29T00:00:00+01:00"), upper: instant("2026-03-30T00:00:00+02:00"))
    assertParses("updated:today", updated(today))
    assertParses("updated:TODAY", updated(today))
    assertParses("updated:yesterday", updated(yesterday))
    assertParses("updated:-1d", updated(yesterday))
    assertParses(
      "updated:tomorrow",
      updated(DateRange(lower: instant("2026-03-31T00:00:00+02:00"), upper: instant("2026-04-01T00:00:00+02:00"))))
    assertParses("updated:>=-7d", updated(DateRange(lower: instant("2026-03-23T00:00:00+01:00"))))
    assertParses(
      "updated:-2w",
      updated(DateRange(lower: instant("2026-03-16T00:00:00+01:00"), upper: instant("2026-03-17T00:00:00+01:00"))))
    // March 30 less a month is February 28 (no February 30).
    assertParses(
      "updated:-1m",
      updated(DateRange(lower: instant("2026-02-28T00:00:00+01:00"), upper: instant("2026-03-01T00:00:00+01:00"))))
    // 2025-03-30 is itself a 23-hour day in Berlin.
    assertParses(
      "updated:-1Y",
      updated(DateRange(lower: instant("2025-03-30T00:00:00+01:00"), upper: instant("2025-03-31T00:00:00+02:00"))))
    assertParses("updated:<-0d", updated(DateRange(upper: instant("2026-03-30T00:00:00+02:00"))))
  }

  func testTodayIsTheLocalDayNotTheUTCOne() throws {
    // 01:30 in Berlin on March 30 is still March 29 in UTC.
    let earlyMorning = instant("2026-03-29T23:30:00Z")
    XCTAssertEqual(
      try parse("updated:today", now: earlyMorning),
      updated(DateRange(lower: instant("2026-03-30T00:00:00+02:00"), upper: instant("2026-03-31T00:00:00+02:00"))))
    let utc = try QueryParser.parse("updated:today", now: earlyMorning, timeZone: TimeZone(identifier: "UTC")!)
    XCTAssertEqual(
      utc, updated(DateRange(lower: instant("2026-03-29T00:00:00Z"), upper: instant("2026-03-30T00:00:00Z"))))
  }

  func testInstantConditions() {
    let moment = instant("2026-01-01T10:00:00Z")
    assertParses("updated:2026-01-01T10:00:00Z", updated(DateRange(lower: moment, upper: moment, upperInclusive: true)))
    assertParses(
      "updated:=2026-01-01T10:00:00Z", updated(DateRange(lower: moment, upper: moment, upperInclusive: true)))
    assertParses("updated:>2026-01-01T10:00:00Z", updated(DateRange(lower: moment, lowerInclusive: false)))
    assertParses("updated:>=2026-01-01T10:00:00Z", updated(DateRange(lower: moment)))
    assertParses("updated:<2026-01-01T10:00:00Z", updated(DateRange(upper: moment)))
    assertParses("updated:<=2026-01-01T10:00:00Z", updated(DateRange(upper: moment, upperInclusive: true)))
    assertParses("updated:>=2026-01-01T11:00:00+01:00", updated(DateRange(lower: moment)))
    assertParses("updated:>=2026-01-01T05:30-04:30", updated(DateRange(lower: moment)))
  }

  func testDateTimeWithoutAZoneIsLocal() {
    assertParses("updated:>=2026-01-01T11:00", updated(DateRange(lower: instant("2026-01-01T10:00:00Z"))))
    // 03:30 on the morning summer time began is already +02:00.
    assertParses("updated:<2026-03-29T03:30:00", updated(DateRange(upper: instant("2026-03-29T03:30:00+02:00"))))
  }

  // MARK: Errors

  func testUnbalancedQuotes() {
    assertFails("\"abc", column: 1, length: 1, "never closed")
    assertFails("a \"b c", column: 3, length: 1, "never closed")
    assertFails("title:\"abc", column: 7, length: 1, "never closed")
    assertFails("-\"abc", column: 2, length: 1, "never closed")
    assertFails("\"a\" \"b", column: 5, length: 1, "never closed")
  }

  func testTwoQuotesInsideQuotesAreOneQuote() throws {
    XCTAssertEqual(
      try QueryLexer.tokens(#"notebook:"say ""hi"" now""#).map(\.kind),
      [
        .filter(key: "notebook", value: #"say "hi" now"#, quoted: true, valueColumn: 11)
      ])
    XCTAssertEqual(try QueryLexer.tokens(#""a""b" c"#).map(\.kind), [.phrase(#"a"b"#), .word("c")])
    XCTAssertEqual(try QueryLexer.tokens(#""""""#).map(\.kind), [.phrase(#"""#)])
    // A quote inside a word stays an ordinary character, as before.
    XCTAssertEqual(try QueryLexer.tokens(#"5'11""#).map(\.kind), [.word(#"5'11""#)])
    assertFails(#""a"""#, column: 1, length: 1, "never closed")
  }

  func testEmptyPhrasesAndStars() {
    assertFails("\"\"", column: 1, length: 2, "empty phrase")
    assertFails("a \"  \"", column: 3, length: 4, "empty phrase")
    assertFails("*", column: 1, length: 1, "* must end a word")
    assertFails("a -*", column: 4, length: 1, "* must end a word")
    assertFails("**", column: 1, length: 2, "* must end a word")
    assertFails("plan**", column: 1, length: 6, "* must end a word")
    assertFails("title:*", column: 7, length: 1, "* must end a word")
    assertFails("\"a b\" *", column: 7, length: 1, "* must end a word")
  }

  func testUnbalancedParentheses() {
    assertFails("(a", column: 1, length: 1, "never closed")
    assertFails("a (b (c)", column: 3, length: 1, "never closed")
    assertFails("(", column: 1, length: 1, "never closed")
    assertFails("a)", column: 2, length: 1, "no matching (")
    assertFails(")", column: 1, length: 1, "no matching (")
    assertFails("(a))", column: 4, length: 1, "no matching (")
    assertFails("a ) b", column: 3, length: 1, "no matching (")
  }

  func testEmptyParentheses() {
    assertFails("()", column: 1, length: 2, "empty parentheses")
    assertFails("a ( ) b", column: 3, length: 3, "empty parentheses")
    assertFails("-()", column: 2, length: 2, "empty parentheses")
  }

  func testOperatorsNeedBothSides() {
    assertFails("a OR", column: 3, length: 2, "OR needs a search term on each side")
    assertFails("OR b", column: 1, length: 2, "OR needs a search term on each side")
    assertFails("OR", column: 1, length: 2, "OR needs")
    assertFails("a OR OR b", column: 3, length: 2, "OR needs")
    assertFails("(OR a)", column: 2, length: 2, "OR needs")
    assertFails("(a OR)", column: 4, length: 2, "OR needs")
    assertFails("a AND", column: 3, length: 3, "AND needs a search term on each side")
    assertFails("AND a", column: 1, length: 3, "AND needs")
    assertFails("a AND OR b", column: 3, length: 3, "AND needs")
  }

  func testLoneDash() {
    assertFails("-", column: 1, length: 1, "lone -")
    assertFails("a - b", column: 3, length: 1, "lone -")
    assertFails("a -", column: 3, length: 1, "lone -")
    assertFails("(a -)", column: 4, length: 1, "lone -")
    assertFails("-- a", column: 2, length: 1, "lone -")
  }

  func testUnknownFilters() {
    let known =
      "use tag:, notebook:, title:, path:, id:, created:, updated:, links-to:, linked-by:, related:, mentions:, "
      + "has:ink, has:unresolved, is:conflict, is:orphan, is:dead-end"
    assertFails("foo:bar", column: 1, length: 4, "unknown filter 'foo:'; " + known)
    assertFails("x -Foo:bar", column: 4, length: 4, "unknown filter 'Foo:'")
    assertFails("TODO:", column: 1, length: 5, "unknown filter 'TODO:'")
    assertFails("mailto:a@b.c", column: 1, length: 7, "quote it")
    assertFails("tags:\"a b\"", column: 1, length: 5, "unknown filter 'tags:'")
  }

  func testEmptyFilterValues() {
    assertFails("tag:", column: 1, length: 4, "tag: needs a value")
    assertFails("a Title:", column: 3, length: 6, "Title: needs a value")
    assertFails("tag:\"\"", column: 1, length: 6, "tag: needs a value")
    assertFails("tag:#", column: 1, length: 5, "tag name")
    assertFails("#", column: 1, length: 1, "tag name")
    assertFails("a notebook:/", column: 3, length: 10, "notebook path")
    assertFails("id:*", column: 4, length: 1, "start of an id")
    assertFails("updated:", column: 1, length: 8, "updated: needs a value")
    assertFails("tag:(a OR b)", column: 1, length: 4, "needs a value")
  }

  func testUnknownHasAndIsValues() {
    assertFails("has:pen", column: 5, length: 3, "has:ink")
    assertFails("a is:draft", column: 6, length: 5, "is:conflict")
  }

  func testMalformedDates() {
    assertFails("updated:>=2026-13-01", column: 11, length: 10, "no such date '2026-13-01'")
    assertFails("updated:2026-02-29", column: 9, length: 10, "no such date")
    assertFails("updated:soon", column: 9, length: 4, "malformed date 'soon'; use YYYY-MM-DD")
    assertFails("created:2026-1-1", column: 9, length: 8, "malformed date")
    assertFails("updated:-7x", column: 9, length: 3, "malformed date")
    assertFails("updated:2026-01-01T25:00:00Z", column: 9, length: 20, "malformed date-time")
    assertFails("updated:2026-01-01X10:00", column: 9, length: 16, "malformed date-time")
    assertFails("updated:\"2026-01-01 nope\"", column: 10, length: 15, "malformed date-time")
    assertFails("updated:>", column: 9, length: 1, "a date is missing")
    assertFails("updated:..", column: 9, length: 2, "at least one side")
    assertFails("updated:>2026-01-01..2026-02-01", column: 9, length: 23, "not both")
    assertFails("updated:2026-01-01..soon", column: 21, length: 4, "malformed date 'soon'")
  }

  func testReversedRanges() {
    assertFails("updated:2026-03-01..2026-01-01", column: 9, length: 22, "ends before it starts")
    assertFails("updated:tomorrow..today", column: 9, length: 15, "ends before it starts")
    assertFails(
      "updated:2026-01-01T10:00:01Z..2026-01-01T10:00:00Z", column: 9, length: 42, "ends before it starts")
  }

  func testColumnsCountCharacters() {
    assertFails("東京 🎉 \"abc", column: 6, length: 1, "never closed")
    assertFails("👨‍👩‍👧 e\u{301} foo:x", column: 5, length: 4, "unknown filter")
    assertFails("Ünï (", column: 5, length: 1, "never closed")
  }

  func testErrorDescriptionQuotesTheOffendingPart() {
    XCTAssertThrowsError(try parse("plan foo:bar")) { error in
      XCTAssertEqual(
        "\(error)",
        "query column 6 ('foo:'): unknown filter 'foo:'; use tag:, notebook:, title:, path:, id:, created:, "
          + "updated:, links-to:, linked-by:, related:, mentions:, has:ink, has:unresolved, is:conflict, is:orphan, "
          + "is:dead-end (to search the text, quote it: \"foo:…\")")
    }
  }

  // MARK: Properties

  /// Random soups of query pieces never crash; an error points inside the query, and a tree is normalized and
  /// unchanged by wrapping the whole query in parentheses.
  func testRandomTokenSoupsNeverCrash() throws {
    let pieces = [
      "a", "b", "Café", "東京", "🎉", "e\u{301}", "OR", "AND", "or", "(", ")", "-", "\"", "*", "#", "#t", ":", "..",
      "tag:", "tag:x", "title:", "title:\"x y\"", "notebook:/", "id:a*", "has:ink", "is:x", "foo:", "x:y", "http://a",
      "12:30", "updated:", "updated:>=2026-01-01", "created:2026-02-30", "-7d", "today", "2026-01-01..",
      "updated:2026-03-29T02:30", ">", "=",
    ]
    let separators = ["", " ", " ", " ", "\t", "  "]
    var generator = SplitMix64(seed: 0x51_7EED)
    var parsed = 0
    for _ in 0..<3000 {
      var text = ""
      for _ in 0..<Int.random(in: 0...10, using: &generator) {
        text += separators.randomElement(using: &generator)! + pieces.randomElement(using: &generator)!
      }
      let count = text.count
      do {
        let tree = try parse(text)
        parsed += 1
        assertNormalized(tree, text)
        if tree != .all {
          XCTAssertEqual(try parse("(" + text + ")"), tree, "wrapping '\(text)' in parentheses")
        }
      } catch {
        XCTAssertEqual(error.query, text)
        XCTAssertGreaterThanOrEqual(error.column, 1, "\(error)")
        XCTAssertGreaterThanOrEqual(error.length, 1, "\(error)")
        XCTAssertLessThanOrEqual(error.column + error.length - 1, max(count, 1), "'\(text)': \(error)")
      }
    }
    // The soup is not all errors: the invariants above were checked on real trees.
    XCTAssertGreaterThan(parsed, 300)
  }

  private func assertNormalized(_ tree: QueryExpression, _ text: String, root: Bool = true) {
    switch tree {
    case .all:
      XCTAssertTrue(root && text.allSatisfy(\.isWhitespace), "'\(text)' gave .all inside a tree")
    case .text(let match):
      XCTAssertFalse(match.text.isEmpty, "'\(text)' gave an empty match")
    case .filter: break
    case .not(let inner): assertNormalized(inner, text, root: false)
    case .and(let parts):
      XCTAssertGreaterThanOrEqual(parts.count, 2, "'\(text)'")
      for part in parts {
        if case .and = part { XCTFail("'\(text)' nests an and in an and") }
        assertNormalized(part, text, root: false)
      }
    case .or(let parts):
      XCTAssertGreaterThanOrEqual(parts.count, 2, "'\(text)'")
      for part in parts {
        if case .or = part { XCTFail("'\(text)' nests an or in an or") }
        assertNormalized(part, text, root: false)
      }
    }
  }

  // MARK: Help

  func testHelpFitsIn80ColumnsAndNamesEveryForm() {
    for line in QueryLanguage.help.split(separator: "\n", omittingEmptySubsequences: false) {
      XCTAssertLessThanOrEqual(line.count, 80, "too wide: \(line)")
    }
    for form in [
      "OR", "AND", "\"quarterly plan\"", "plan*", "-draft", "tag:", "#work", "notebook:", "title:", "path:", "id:",
      "created:", "updated:", "has:ink", "is:conflict", "YYYY-MM-DD", "today", "yesterday", "tomorrow", "-7d", "..",
      ">=D", "<=D", "links-to:", "linked-by:", "related:", "mentions:", "has:unresolved", "is:orphan", "is:dead-end",
    ] {
      XCTAssertTrue(QueryLanguage.help.contains(form), "help lacks \(form)")
    }
    let examples = QueryLanguage.help.components(separatedBy: "\n").filter { $0.hasPrefix("  nb ") }
    XCTAssertTrue((6...8).contains(examples.count), "\(examples.count) examples")
    // Every example parses.
    for example in examples {
      let query = example.split(separator: "'", maxSplits: 2)[1]
      XCTAssertNoThrow(try parse(String(query)), example)
    }
  }
}
