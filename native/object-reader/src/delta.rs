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
    if result_size(delta)? != out.len() as u64 {
        return Err("delta's result size is not the room given".into());
    }
    apply(base, delta, |at, piece| out[at..at + piece.len()].copy_from_slice(piece))
}

/**
 * Applies `delta` to `base` into a new vector of the result's size, written once (not zeroed first:
 * a rebuilt version of a file is tens of kilobytes, and zeroing it was a tenth of the reading).
 */
pub fn apply_to_vec(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, String> {
    let size = usize::try_from(result_size(delta)?).map_err(|_| "delta result too large")?;
    let mut made = Vec::with_capacity(size);
    apply(base, delta, |_, piece| made.extend_from_slice(piece))?;
    Ok(made)
}

/**
 * Applies `delta` to `base`, handing `put` each piece of the result with where it goes, in order;
 * fails unless the pieces make exactly the size the header says.
 */
fn apply(base: &[u8], delta: &[u8], mut put: impl FnMut(usize, &[u8])) -> Result<(), String> {
    let mut pos = 0;
    let base_size = header_size(delta, &mut pos)?;
    if base_size != base.len() as u64 {
        return Err("delta's base size does not match its base".into());
    }
    let size = header_size(delta, &mut pos)?;
    let mut made: u64 = 0;
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
            if end > base.len() || made + length as u64 > size {
                return Err("delta copy out of range".into());
            }
            put(made as usize, &base[offset..end]);
            made += length as u64;
        } else if cmd != 0 {
            let length = cmd as usize;
            let end = pos + length;
            if end > delta.len() || made + length as u64 > size {
                return Err("delta insert out of range".into());
            }
            put(made as usize, &delta[pos..end]);
            made += length as u64;
            pos = end;
        } else {
            return Err("delta has a reserved opcode".into());
        }
    }
    if made != size {
        return Err("delta made fewer bytes than its header says".into());
    }
    Ok(())
}
