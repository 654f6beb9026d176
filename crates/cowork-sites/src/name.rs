//! The app's `name` (and folder name): the title in lowercase kebab, by the rules of the
//! reference's page 12 (`^[a-z0-9][a-z0-9-]{0,62}$`, not a name `.cowork/` keeps for itself, not a
//! Windows device name), made unique with `-2`, `-3`… against the workspace's folders and names.

use cowork_core::discovery::folder_name_rejection;

/// The longest name the manifest schema allows.
const MAX_LEN: usize = 63;

/// `"Acme Chat — Inbox"` → `"acme-chat-inbox"`: ASCII letters and digits lowercased, every other
/// run of characters one dash, at most 63 characters (cut at a dash when it can be).
pub fn kebab(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    fit(&out, MAX_LEN)
}

/// `name` cut to `len` characters, at its last dash inside the limit when there is one, without
/// a trailing dash.
fn fit(name: &str, len: usize) -> String {
    let name = name.trim_end_matches('-');
    if name.len() <= len {
        return name.to_owned();
    }
    let cut = &name[..len];
    let at_dash = cut.rfind('-').filter(|&i| i > 0).map_or(cut, |i| &cut[..i]);
    at_dash.trim_end_matches('-').to_owned()
}

/// The first of `sources` that makes a kebab name (a title in another script makes none: the host
/// is the last source).
pub fn base(sources: &[&str]) -> String {
    sources.iter().map(|s| kebab(s)).find(|k| !k.is_empty()).unwrap_or_else(|| "site".to_owned())
}

/// `base`, `base-2`, `base-3`…: the names to try in turn, each a valid app folder name.
pub fn candidates(base: &str) -> impl Iterator<Item = String> + '_ {
    (1..)
        .map(move |n| {
            if n == 1 {
                base.to_owned()
            } else {
                format!("{}-{n}", fit(base, MAX_LEN - 1 - n.to_string().len()))
            }
        })
        .filter(|name| folder_name_rejection(name).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_lowercase_kebab() {
        assert_eq!(kebab("WhatsApp"), "whatsapp");
        assert_eq!(kebab("  Acme Chat — Inbox (3) "), "acme-chat-inbox-3");
        assert_eq!(kebab("web.whatsapp.com"), "web-whatsapp-com");
        assert_eq!(kebab("Café Olé"), "caf-ol");
        assert_eq!(kebab("日本語"), "");
        assert_eq!(kebab("--x--"), "x");
    }

    #[test]
    fn long_titles_are_cut_at_a_word_within_63_characters() {
        let name =
            kebab("The quick brown fox jumps over the lazy dog and keeps on running far away");
        assert_eq!(name, "the-quick-brown-fox-jumps-over-the-lazy-dog-and-keeps-on");
        assert!(name.len() <= 63);
        assert_eq!(kebab(&"a".repeat(80)).len(), 63);
    }

    #[test]
    fn the_first_source_with_letters_or_digits_wins() {
        assert_eq!(base(&["日本語", "Example", "example.com"]), "example");
        assert_eq!(base(&["", "—"]), "site");
    }

    #[test]
    fn candidates_count_up_and_skip_reserved_names() {
        assert_eq!(candidates("chat").take(3).collect::<Vec<_>>(), ["chat", "chat-2", "chat-3"]);
        assert_eq!(candidates("data").next().unwrap(), "data-2");
        assert_eq!(candidates("con").next().unwrap(), "con-2");
        let long = "a".repeat(63);
        let second = candidates(&long).nth(1).unwrap();
        assert_eq!(second.len(), 63);
        assert!(second.ends_with("-2"));
    }
}
