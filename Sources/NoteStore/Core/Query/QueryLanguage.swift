/// The query language `nb search` and `nb list` accept, described for people.
public enum QueryLanguage {
  /// A reference of every form with examples, at most 80 columns wide; `nb help search` prints it and the README
  /// quotes it.
  public static let help = """
    Every part of a query must match; case and accents are ignored.

      plan roadmap         both words, anywhere in the title, tags or body
      "quarterly plan"     these words next to each other, in this order
      plan*                words starting with plan
      plan OR roadmap      either one; OR (uppercase) binds looser than the
                           implicit AND: a b OR c means (a b) OR c
      a AND b              the same as a b
      (plan OR roadmap) q3 parentheses group
      -draft  -"old plan"  notes without it; also -tag:x, -(a OR b)

    Filters (the key is case-insensitive; quote a value with spaces):
      tag:work  #work      tagged work, or a tag under it such as work/q3
      notebook:work/ideas  in that notebook or one below it
      title:plan           in the title; also title:plan*, title:"a b"
      path:2026            the note's path contains the text
      id:3f2a  id:3f2*     the note's id, or ids starting with 3f2
      has:ink              notes with handwriting
      is:conflict          conflict copies left by sync
      links-to:NOTE        notes with a link to NOTE (or to a file: a path)
      linked-by:NOTE       notes NOTE links to
      related:NOTE         notes linking to a file NOTE links to, where
                           neither links to the other
      mentions:NOTE        notes naming NOTE's title or an alias, unlinked
      has:unresolved       notes with a link that reaches no file
      is:orphan            notes with no links to or from other files
      is:dead-end          notes with no links to other files
      created:D updated:D  on day D; also >D, >=D, <D, <=D, and D1..D2
                           (both days included; D1.. or ..D2 for open ends)

    A date D is YYYY-MM-DD (a whole local day), a date-time such as
    2026-01-31T09:00:00Z or 2026-01-31T09:00 (local), today, yesterday,
    tomorrow, or -7d, -2w, -3m, -1y (that many days, weeks, months or years
    ago).

    Links, times and drive letters are words, not filters: http://x, 12:30,
    C:\\notes. To search other text with a colon, or the word OR, quote it:
    "todo:", "OR".
    Inside quotes, "" is one quote: title:"a ""b"" c" has the title a "b" c.

    Examples:
      nb search 'roadmap tag:planning -draft'
      nb search '"quarterly plan" OR okr*'
      nb search 'title:meeting updated:>=-7d'
      nb list 'notebook:work (tag:urgent OR #blocked)'
      nb list 'created:2026-01-01..2026-03-31 -is:conflict'
      nb list 'updated:today has:ink'
      nb search 'id:3f2a*'
      nb list 'links-to:work/roadmap tag:planning'
    """
}
