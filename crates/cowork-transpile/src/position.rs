//! Byte offsets (what oxc's spans hold) to the 1-based line and column a person sees.

/// Where each line of a source text starts, so an offset becomes a line by binary search.
pub(crate) struct Lines<'s> {
    source: &'s str,
    starts: Vec<u32>,
}

impl<'s> Lines<'s> {
    pub(crate) fn new(source: &'s str) -> Self {
        // Spans are `u32` offsets, so nothing past 4 GiB can be pointed at (and oxc refuses
        // such a source anyway); cutting there keeps every offset below in range.
        let bytes = &source.as_bytes()[..source.len().min(u32::MAX as usize)];
        let mut starts = vec![0];
        for (i, &byte) in bytes.iter().enumerate() {
            // `\r\n` counts once and a lone `\r` counts too, as editors do.
            let ends_line = byte == b'\n' || (byte == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(to_u32(i + 1));
            }
        }
        Self { source, starts }
    }

    /// The 1-based line and column of a byte offset. The column counts characters, not bytes, so
    /// a line with accents or emoji before the spot still points at the right place.
    pub(crate) fn position(&self, offset: u32) -> (u32, u32) {
        let line = self.line(offset);
        let start = self.starts[line as usize - 1] as usize;
        let end = (offset as usize).min(self.source.len());
        let column = self.source.get(start..end).map_or(end - start, |text| text.chars().count());
        (line, to_u32(column) + 1)
    }

    /// The 1-based line of a byte offset.
    pub(crate) fn line(&self, offset: u32) -> u32 {
        // `partition_point` is the number of line starts at or before `offset`, at least 1.
        to_u32(self.starts.partition_point(|&start| start <= offset))
    }
}

/// Offsets, line numbers and columns never exceed the (cut) length of the source, a `u32`.
fn to_u32(value: usize) -> u32 {
    u32::try_from(value).expect("bounded by a source cut at u32::MAX bytes")
}

#[cfg(test)]
mod tests {
    use super::Lines;

    #[test]
    fn first_character_is_line_one_column_one() {
        assert_eq!(Lines::new("abc").position(0), (1, 1));
    }

    #[test]
    fn columns_count_characters_after_the_last_line_break() {
        let lines = Lines::new("a\r\nbé c\rd");
        assert_eq!(lines.position(3), (2, 1));
        // `c` sits after the two-byte `é` and a space: third character of line 2.
        assert_eq!(lines.position(7), (2, 4));
        assert_eq!(lines.position(9), (3, 1));
    }
}
