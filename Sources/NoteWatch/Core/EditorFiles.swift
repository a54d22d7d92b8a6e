/// The scratch files editors make around a save, which are never notes: a change to one alone is no reason to
/// save, and a save never commits one that happens to exist at that moment.
public enum EditorFiles {
  /// Whether `path` (relative, "/"-separated) is an editor's scratch file or lies under `.git`.
  ///
  /// - vim: the `4913` probe (and `5036`, `5159` … it tries when that exists), `~` backups, `.swp`/`.swx`/`.swo`
  ///   … swap files.
  /// - Emacs: `#file#` autosaves and `.#file` lock symlinks.
  /// - JetBrains safe-write: `___jb_tmp___` and `___jb_old___`.
  /// - Write-then-rename temporaries (`*.tmp`, gedit's `.goutputstream-*`, Kate's `.kate-swp`), nb's own
  ///   `.name.nb-<pid>-<n>.tmp` among them.
  public static func isScratch(_ path: String) -> Bool {
    let components = path.split(separator: "/")
    guard let name = components.last else { return false }
    if components.contains(".git") { return true }
    if isVimProbe(name) { return true }
    if name.hasSuffix("~") || name.hasSuffix(".tmp") || name.hasSuffix(".kate-swp") { return true }
    if name.hasPrefix(".goutputstream-") || name.hasPrefix(".#") { return true }
    if name.count > 1, name.hasPrefix("#"), name.hasSuffix("#") { return true }
    if name.contains("___jb_tmp___") || name.contains("___jb_old___") { return true }
    return isVimSwap(name)
  }

  /// vim's test of whether it may write in a directory: a file named `4913`, or `5036`, `5159` … (123 apart)
  /// when that exists. Other all-digit names (`2026`) are someone's files.
  private static func isVimProbe(_ name: Substring) -> Bool {
    guard name.count <= 9, name.allSatisfy(\.isASCIIDigit), let number = Int(name) else { return false }
    return number >= 4913 && (number - 4913) % 123 == 0
  }

  /// vim's swap names: `.name.swp`, then `.swo`, `.swn` … down to `.swa`, then `.svz` … (and `.swx` for its
  /// permission probe). Only hidden names: `drawing.svg` or `movie.swf` are someone's files.
  private static func isVimSwap(_ name: Substring) -> Bool {
    if name.hasSuffix(".swp") || name.hasSuffix(".swx") { return true }
    guard name.hasPrefix(".") else { return false }
    let scalars = Array(name.unicodeScalars.suffix(4))
    guard scalars.count == 4, scalars[0] == ".", scalars[1] == "s" else { return false }
    let second = scalars[2]
    let third = scalars[3]
    return ("a"..."z").contains(second) && ("a"..."z").contains(third) && (second == "w" || second == "v")
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
