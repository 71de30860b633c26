//! git's delta format (patch-delta.c's rules): a base's size and the result's, then copies out of
//! the base and inserts of literal bytes. Every copy is checked against both buffers.

/** Reads a delta header's size: seven bits a byte, least significant first. */
pub fn header_size(delta: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut size: u64 = 0;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*pos).ok_or("delta ends in its header")?;
        *pos += 1;
        if shift > 63 {
            return Err("delta header too long".into());
        }
        size |= ((byte & 0x7f) as u64) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(size);
        }
    }
}

/** The size of what `delta` makes, from its header (before applying it). */
pub fn result_size(delta: &[u8]) -> Result<u64, String> {
    let mut pos = 0;
    header_size(delta, &mut pos)?;
    header_size(delta, &mut pos)
}

/** Applies `delta` to `base`, writing the result into `out`, which must be the result's exact size. */
pub fn apply_into(base: &[u8], delta: &[u8], out: &mut [u8]) -> Result<(), String> {
    let mut pos = 0;
    let base_size = header_size(delta, &mut pos)?;
    if base_size != base.len() as u64 {
        return Err("delta's base size does not match its base".into());
    }
    let size = header_size(delta, &mut pos)?;
    if size != out.len() as u64 {
        return Err("delta's result size is not the room given".into());
    }
    let mut made = 0;
    while pos < delta.len() {
        let cmd = delta[pos];
        pos += 1;
        if cmd & 0x80 != 0 {
            let mut offset: usize = 0;
            let mut length: usize = 0;
            for bit in 0..4 {
                if cmd & (1 << bit) != 0 {
                    offset |= (*delta.get(pos).ok_or("delta ends in a copy")? as usize) << (8 * bit);
                    pos += 1;
                }
            }
            for bit in 0..3 {
                if cmd & (0x10 << bit) != 0 {
                    length |= (*delta.get(pos).ok_or("delta ends in a copy")? as usize) << (8 * bit);
                    pos += 1;
                }
            }
            if length == 0 {
                length = 0x10000;
            }
            let end = offset.checked_add(length).ok_or("delta copy out of range")?;
            if end > base.len() || made + length > out.len() {
                return Err("delta copy out of range".into());
            }
            out[made..made + length].copy_from_slice(&base[offset..end]);
            made += length;
        } else if cmd != 0 {
            let length = cmd as usize;
            let end = pos + length;
            if end > delta.len() || made + length > out.len() {
                return Err("delta insert out of range".into());
            }
            out[made..made + length].copy_from_slice(&delta[pos..end]);
            made += length;
            pos = end;
        } else {
            return Err("delta has a reserved opcode".into());
        }
    }
    if made != out.len() {
        return Err("delta made fewer bytes than its header says".into());
    }
    Ok(())
}
