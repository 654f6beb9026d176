//! What an install reads from a page's HTML: `<title>`, `<link rel="manifest">`, the icons
//! (`<link rel="icon">`, `apple-touch-icon`), `<meta name="theme-color">` and `<base href>`.
//!
//! A small tag scanner instead of an HTML5 parser: these few tags sit in the head, and the scanner
//! only has to step over comments and the raw text of `<script>`/`<style>` correctly (a `<link>` in
//! a script's string is not a link). Everything else of the page is ignored.

/// What the page says about itself. Addresses are as written (relative to [`Page::base`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Page {
    /// The `<title>`, whitespace collapsed.
    pub title: Option<String>,
    /// The first `<link rel="manifest">`'s `href`.
    pub manifest: Option<String>,
    /// The icon links, in page order.
    pub icons: Vec<PageIcon>,
    /// `<meta name="theme-color">`'s `content` (the first without a `media` query, else the first).
    pub theme_color: Option<String>,
    /// The first `<base href>`: what relative addresses are relative to.
    pub base: Option<String>,
}

/// An icon link of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageIcon {
    /// The `href`.
    pub href: String,
    /// The `sizes` attribute (`"180x180"`, `"16x16 32x32"`, `"any"`).
    pub sizes: Option<String>,
    /// The `type` attribute.
    pub mime: Option<String>,
    /// An `apple-touch-icon`: made for a home screen, so large (180 px) and opaque.
    pub touch: bool,
}

/// Reads a page.
pub fn parse(html: &str) -> Page {
    let mut page = Page::default();
    let mut theme_color_with_media = None;
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = after.find("-->").map_or("", |end| &after[end + 3..]);
            continue;
        }
        let Some(tag) = Tag::read(rest) else {
            rest = &rest[1..];
            continue;
        };
        rest = &rest[tag.len..];
        match tag.name.as_str() {
            // Raw text: a `<link>` inside is not a tag.
            "script" | "style" | "template" | "textarea" => {
                rest = skip_past_end_tag(rest, &tag.name).1
            }
            "title" => {
                let (text, after) = skip_past_end_tag(rest, "title");
                if page.title.is_none() {
                    let title = collapse(&decode_entities(text));
                    page.title = (!title.is_empty()).then_some(title);
                }
                rest = after;
            }
            "base" if page.base.is_none() => page.base = tag.attr("href"),
            "meta" if tag.attr("name").is_some_and(|n| n.eq_ignore_ascii_case("theme-color")) => {
                let content =
                    tag.attr("content").map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
                if tag.attr("media").is_some() {
                    theme_color_with_media = theme_color_with_media.or(content);
                } else if page.theme_color.is_none() {
                    page.theme_color = content;
                }
            }
            "link" => page.add_link(&tag),
            _ => {}
        }
    }
    page.theme_color = page.theme_color.or(theme_color_with_media);
    page
}

impl Page {
    fn add_link(&mut self, tag: &Tag) {
        let (Some(rel), Some(href)) = (tag.attr("rel"), tag.attr("href")) else { return };
        let href = href.trim().to_owned();
        if href.is_empty() {
            return;
        }
        let rel = rel.to_ascii_lowercase();
        let rels: Vec<&str> = rel.split_ascii_whitespace().collect();
        if rels.contains(&"manifest") && self.manifest.is_none() {
            self.manifest = Some(href.clone());
        }
        let touch = rels.iter().any(|r| r.starts_with("apple-touch-icon"));
        if touch || rels.contains(&"icon") {
            self.icons.push(PageIcon {
                href,
                sizes: tag.attr("sizes"),
                mime: tag.attr("type"),
                touch,
            });
        }
    }
}

/// A start tag: its lowercase name, its attributes, and how many bytes it spans.
struct Tag {
    name: String,
    attributes: Vec<(String, String)>,
    len: usize,
}

impl Tag {
    /// Reads the start tag at the start of `text` (which begins with `<`); `None` when it is not
    /// one (an end tag, `<!doctype>`, a stray `<`).
    fn read(text: &str) -> Option<Tag> {
        let bytes = text.as_bytes();
        if !bytes.get(1).is_some_and(u8::is_ascii_alphabetic) {
            // `</x>`, `<!doctype>`, `<?xml ?>`: step over the whole thing.
            return (bytes.get(1).is_some_and(|b| matches!(b, b'/' | b'!' | b'?'))).then(|| Tag {
                name: String::new(),
                attributes: Vec::new(),
                len: text.find('>').map_or(text.len(), |e| e + 1),
            });
        }
        let mut i = 1;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() && !matches!(bytes[i], b'/' | b'>')
        {
            i += 1;
        }
        let name = text[1..i].to_ascii_lowercase();
        let mut attributes = Vec::new();
        loop {
            while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
                i += 1;
            }
            if i >= bytes.len() {
                break;
            }
            if bytes[i] == b'>' {
                i += 1;
                break;
            }
            let start = i;
            while i < bytes.len()
                && !bytes[i].is_ascii_whitespace()
                && !matches!(bytes[i], b'=' | b'>' | b'/')
            {
                i += 1;
            }
            let key = text[start..i].to_ascii_lowercase();
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let mut value = String::new();
            if bytes.get(i) == Some(&b'=') {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                let (raw, end) = match bytes.get(i) {
                    Some(&q @ (b'"' | b'\'')) => {
                        let close = text[i + 1..].find(q as char).map_or(text.len(), |e| i + 1 + e);
                        (&text[i + 1..close], (close + 1).min(text.len()))
                    }
                    _ => {
                        let mut end = i;
                        while end < bytes.len()
                            && !bytes[end].is_ascii_whitespace()
                            && bytes[end] != b'>'
                        {
                            end += 1;
                        }
                        (&text[i..end], end)
                    }
                };
                value = decode_entities(raw);
                i = end;
            }
            if !key.is_empty() {
                attributes.push((key, value));
            } else {
                i += 1;
            }
        }
        Some(Tag { name, attributes, len: i })
    }

    /// The first value of attribute `name`.
    fn attr(&self, name: &str) -> Option<String> {
        self.attributes.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
}

/// Splits `text` at the end tag `</name` (any case): the raw text before it, and what follows the
/// end tag. No end tag: everything is raw text.
fn skip_past_end_tag<'a>(text: &'a str, name: &str) -> (&'a str, &'a str) {
    let mut from = 0;
    while let Some(at) = text[from..].find("</").map(|i| from + i) {
        let candidate = text.as_bytes().get(at + 2..at + 2 + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name.as_bytes())) {
            let after = &text[at..];
            return (&text[..at], after.find('>').map_or("", |e| &after[e + 1..]));
        }
        from = at + 2;
    }
    (text, "")
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Decodes the character references a title or an attribute commonly holds.
fn decode_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let body = &rest[1..e];
            let c = match body {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                "nbsp" => ' ',
                _ => {
                    let number = body.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_head_of_a_real_looking_page() {
        let page = parse(
            r##"<!doctype html><html lang="en"><head>
            <meta charset="utf-8"><title>
              Inbox &amp; Chats &#8211; Acme
            </title>
            <base href="/app/">
            <link rel="manifest" href="manifest.webmanifest" crossorigin=use-credentials>
            <LINK REL="shortcut icon" HREF=/favicon.png type=image/png>
            <link rel="apple-touch-icon" sizes="180x180" href="/touch.png"/>
            <meta name="theme-color" content="#111111" media="(prefers-color-scheme: dark)">
            <meta name="theme-color" content="#25D366">
            </head><body><link rel="icon" href="late.png"></body></html>"##,
        );
        assert_eq!(page.title.as_deref(), Some("Inbox & Chats – Acme"));
        assert_eq!(page.manifest.as_deref(), Some("manifest.webmanifest"));
        assert_eq!(page.base.as_deref(), Some("/app/"));
        assert_eq!(page.theme_color.as_deref(), Some("#25D366"));
        let hrefs: Vec<_> = page
            .icons
            .iter()
            .map(|i| (i.href.as_str(), i.touch, i.sizes.as_deref(), i.mime.as_deref()))
            .collect();
        assert_eq!(
            hrefs,
            [
                ("/favicon.png", false, None, Some("image/png")),
                ("/touch.png", true, Some("180x180"), None),
                ("late.png", false, None, None)
            ]
        );
    }

    #[test]
    fn tags_inside_scripts_styles_and_comments_are_not_read() {
        let page = parse(
            r#"<head><!-- <link rel="manifest" href="commented.json"> -->
            <script>document.write('<link rel="manifest" href="script.json"><title>no</title>')</script>
            <style>/* <link rel=icon href=x.png> */</style>
            <title>Real</title><link rel=manifest href=real.json></head>"#,
        );
        assert_eq!(page.manifest.as_deref(), Some("real.json"));
        assert_eq!(page.title.as_deref(), Some("Real"));
        assert!(page.icons.is_empty());
    }

    #[test]
    fn a_page_without_any_of_it_reads_as_empty() {
        assert_eq!(parse("<html><body>hello < world</body>"), Page::default());
        assert_eq!(parse("<title>   </title><link rel=icon><link href=x.png>"), Page::default());
        assert_eq!(
            parse("<title>Unclosed"),
            Page { title: Some("Unclosed".into()), ..Page::default() }
        );
    }
}
