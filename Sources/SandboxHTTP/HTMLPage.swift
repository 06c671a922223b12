// SPDX-License-Identifier: MIT

/// The document shell of the providers' self-contained pages (hosted payment pages, checkouts): doctype,
/// `<html lang="en">`, a head with charset, a 390 px-friendly viewport, `noindex`, the escaped title, any extra head
/// elements and the page's inline style, then the body. Only the title is escaped here (``HTMLText/escape(_:)``);
/// `head` and `body` are markup the page built with its own escaping.
package enum HTMLPage {
    package static func document(title: String, head: String = "", style: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>\(HTMLText.escape(title))</title>
        \(head)<style>\(style)</style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
