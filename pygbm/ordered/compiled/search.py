"""Compiled histograms and candidate scores of the ordered split search.

The columns are integers (:mod:`pygbm.ordered.columns`): a row adds its
plain columns, its tail entry and its body entries to its bucket of every
predictor, and only those (the NumPy reference adds the zeros between
them too: integer sums, the same). Sums become floats exactly as
:func:`pygbm.ordered.search.plain_sums` and
:func:`pygbm.ordered.search.score_terms` make them, and every candidate's
change of N and D is formed in the reference's order.

``lay`` is the column layout as a tuple (plain columns, entry width, folds,
count bits); ``units`` = (plain units (2,), fold units (K, width)).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _tail_column(lay, k):
    """First column of fold ``k``'s tail entry (:meth:`pygbm.ordered.columns.Layout.tail_column`)."""
    return lay[0] + 2 * lay[1] * (lay[2] - 1 - k)


@njit(cache=True, error_model="numpy")
def add_rows(hist, codes, cols, rows, with_plain):
    """Add the columns ``cols`` = (plain (n, P), fold values, tail folds,
    layout) of ``rows`` (training rows) to ``hist`` (n_cells + 1, C): each
    of a row's entries (its tail entry, its body entries) added to its
    bucket of every predictor in turn, then its plain columns where
    ``with_plain[v]`` (the others' counts come from the fold entries, see
    :func:`cell_count`)."""
    plain, values, tail_fold, lay = cols
    n_plain, width, n_folds = lay[0], lay[1], lay[2]
    n_cols = hist.shape[1]
    flat = hist.reshape(-1)
    p = codes.shape[1]
    base = np.empty(p, dtype=np.int64)          # the row's bucket of every predictor
    any_plain = False
    for v in range(p):
        any_plain = any_plain or with_plain[v]
    for q in range(rows.shape[0]):
        i = rows[q]
        j = tail_fold[i]
        for v in range(p):
            base[v] = codes[i, v] * n_cols
        for k in range(max(j, 0), n_folds):
            at = _tail_column(lay, k) + (0 if k == j else width)
            for g in range(width):
                x = values[i, width * k + g]
                for v in range(p):
                    flat[base[v] + at + g] += x
        if any_plain:
            for v in range(p):
                if with_plain[v]:
                    for a in range(n_plain):
                        flat[base[v] + a] += plain[i, a]


@njit(cache=True, error_model="numpy")
def cell_count(s, lay):
    """In-bag rows of sums ``s`` (C,): the plain count, or with packed
    entries the fold entries' (a row is in one tail, or before the first
    tail and then in fold 0's body), so that buckets without plain columns
    have their counts too."""
    if lay[1] != 1:
        return s[2]
    mask = (1 << lay[3]) - 1
    count = s[_tail_column(lay, 0) + 1] & mask
    for k in range(lay[2]):
        count += s[_tail_column(lay, k)] & mask
    return count


@njit(cache=True, error_model="numpy")
def plain_of(s, lay, unit_plain):
    """w*z, w and the row count of integer sums ``s`` (C,)."""
    if lay[0] == 1:
        h = s[0]
        count = h & ((1 << lay[3]) - 1)
        return float(h >> lay[3]) * unit_plain[0], float(count), count
    return float(s[0]) * unit_plain[0], float(s[1]) * unit_plain[1], s[2]


@njit(cache=True, error_model="numpy")
def _entry(s, at, k, lay, unit_folds):
    """w*z and w of the entry of fold ``k`` starting at column ``at``."""
    if lay[1] == 1:
        h = s[at]
        return float(h >> lay[3]) * unit_folds[k, 0], float(h & ((1 << lay[3]) - 1))
    return float(s[at]) * unit_folds[k, 0], float(s[at + 1]) * unit_folds[k, 1]


@njit(cache=True, error_model="numpy")
def terms_of(s, lay, unit_folds):
    """N and D of integer sums ``s`` (C,), the folds added in turn."""
    n = 0.0
    d = 0.0
    for k in range(lay[2]):
        at = _tail_column(lay, k)
        tz, tw = _entry(s, at, k, lay, unit_folds)
        bz, bw = _entry(s, at + lay[1], k, lay, unit_folds)
        a = bz / bw if bw > 0.0 else 0.0
        n = n + a * tz
        d = d + a * a * tw
    return n, d


@njit(cache=True, error_model="numpy")
def _before(a, b):
    """NumPy's sort order: a before b (NaN last)."""
    return a < b or (b != b and a == a)


@njit(cache=True, error_model="numpy")
def stable_order(keys):
    """The stable ascending order of ``keys`` (NaN last), as NumPy's stable
    argsort: a bottom-up merge sort."""
    n = keys.shape[0]
    idx = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    run = 1
    while run < n:
        for lo in range(0, n, 2 * run):
            mid = min(lo + run, n)
            hi = min(lo + 2 * run, n)
            a, b, out = lo, mid, lo
            while a < mid and b < hi:
                if _before(keys[idx[b]], keys[idx[a]]):
                    tmp[out] = idx[b]
                    b += 1
                else:
                    tmp[out] = idx[a]
                    a += 1
                out += 1
            while a < mid:
                tmp[out] = idx[a]
                a += 1
                out += 1
            while b < hi:
                tmp[out] = idx[b]
                b += 1
                out += 1
        idx, tmp = tmp, idx
        run *= 2
    return idx


@njit(cache=True, error_model="numpy")
def level_order(hist, cells, lay, unit_plain):
    """The levels (cells) of one categorical predictor ordered by mean plain
    working response (levels without rows last) and how many hold rows."""
    k = cells.shape[0]
    means = np.empty(k)
    n_occupied = 0
    for lev in range(k):
        z, w, count = plain_of(hist[cells[lev]], lay, unit_plain)
        if count > 0:
            means[lev] = z / w
            n_occupied += 1
        else:
            means[lev] = np.inf
    return stable_order(means), n_occupied


@njit(cache=True, error_model="numpy")
def _side_counts(left, m, total, missing, lay, lc, rc):
    """:func:`cell_count` of the first ``m`` columns of the column-major
    ``left`` block (C, m) into ``lc``, and of the right sums (total - left -
    missing) into ``rc``, over all columns at once. Packed counts are the low
    bits of their columns; each is a count of rows, so they subtract without
    a borrow and the right counts are the total's minus the left's and the
    missing bucket's."""
    if lay[1] != 1:
        row = left[2]
        rest = total[2] - missing[2]
        for c in range(m):
            lc[c] = row[c]
            rc[c] = rest - row[c]
        return
    mask = (1 << lay[3]) - 1
    row = left[_tail_column(lay, 0) + 1]
    for c in range(m):
        lc[c] = row[c] & mask
    for k in range(lay[2]):
        row = left[_tail_column(lay, k)]
        for c in range(m):
            lc[c] += row[c] & mask
    rest = cell_count(total, lay) - cell_count(missing, lay)
    for c in range(m):
        rc[c] = rest - lc[c]


@njit(cache=True, error_model="numpy")
def _plain_value(h, lay, unit_plain):
    """w*z of a plain sum ``h`` (packed or not)."""
    if lay[0] == 1:
        return float(h >> lay[3]) * unit_plain[0]
    return float(h) * unit_plain[0]


@njit(cache=True, error_model="numpy")
def _allowed(left, c, total, missing, ln, rn, mono, min_obs, lay, unit_plain):
    """Whether candidate ``c`` of the left block (``ln``, ``rn`` in-bag rows
    left and right) leaves ``min_obs`` rows and some weight on each side
    and keeps a monotone constraint (whose predictor's plain columns are in
    the histogram)."""
    if lay[0] == 1:
        lw, rw = float(ln), float(rn)           # unit weights: the weight is the count
    else:
        lw = float(left[1, c]) * unit_plain[1]
        rw = float(total[1] - left[1, c] - missing[1]) * unit_plain[1]
    if not (ln >= min_obs and rn >= min_obs and lw > 0.0 and rw > 0.0):
        return False
    if mono == 0:
        return True
    lz = _plain_value(left[0, c], lay, unit_plain)
    rz = _plain_value(total[0] - left[0, c] - missing[0], lay, unit_plain)
    return mono * (rz * lw - lz * rw) > 0.0


#: an int64 with this bit pattern added to an integer |v| < 2**51 makes the
#: double whose value minus MAGIC_FLOAT is v exactly (1.5 * 2**52): an exact
#: int64 -> float conversion in vector registers, which AVX2 lacks
MAGIC_BITS = np.int64(0x4338000000000000)
MAGIC_FLOAT = 6755399441055744.0
#: the fewest count bits for which packed fold sums (below 2**(60 - count
#: bits) plus half a unit per row) stay below 2**51; counts must fit int32
FAST_MIN_COUNT_BITS, FAST_MAX_COUNT_BITS = 10, 31


@njit(cache=True, error_model="numpy")
def _unpack(body, tail, rest_b, rest_t, right, m, cb, scratch):
    """The packed body and tail sums of the first ``m`` candidates (left, or
    right = rest - left) split into magic-biased w*z and int32 counts in
    ``scratch`` (:func:`scan_work`)."""
    bz, tz, bw, tw = scratch[0], scratch[2], scratch[4], scratch[5]
    mask = (1 << cb) - 1
    for c in range(m):
        b = rest_b - body[c] if right else body[c]
        t = rest_t - tail[c] if right else tail[c]
        bz[c] = (b >> cb) + MAGIC_BITS
        tz[c] = (t >> cb) + MAGIC_BITS
        bw[c] = np.int32(b & mask)
        tw[c] = np.int32(t & mask)


@njit(cache=True, error_model="numpy")
def _add_terms(n_out, d_out, m, u, scratch):
    """One fold's terms of the unpacked sums in ``scratch`` added to N and D
    (:func:`terms_of`'s arithmetic)."""
    bz, tz, bw, tw = scratch[1], scratch[3], scratch[4], scratch[5]
    for c in range(m):
        w = float(bw[c])
        a = (bz[c] - MAGIC_FLOAT) * u / w if w > 0.0 else 0.0
        n_out[c] = n_out[c] + a * ((tz[c] - MAGIC_FLOAT) * u)
        d_out[c] = d_out[c] + a * a * float(tw[c])


@njit(cache=True, error_model="numpy")
def _terms_sides(left, m, total, missing, lay, unit_folds, out, scratch):
    """:func:`terms_of` of the first ``m`` columns of the column-major
    ``left`` block (C, m) and of their right sums (total - left - missing),
    fold by fold over all of them (the same arithmetic, in vector
    registers): ``out`` = (N left, D left, N right, D right)."""
    n_l, d_l, n_r, d_r = out
    mask = (1 << lay[3]) - 1
    cb = lay[3]
    for c in range(m):
        n_l[c] = 0.0
        d_l[c] = 0.0
        n_r[c] = 0.0
        d_r[c] = 0.0
    fast = FAST_MIN_COUNT_BITS <= cb <= FAST_MAX_COUNT_BITS
    for k in range(lay[2]):
        at = _tail_column(lay, k)
        u = unit_folds[k, 0]
        tail = left[at]
        rest_t = total[at] - missing[at]
        if lay[1] == 1 and fast:
            body = left[at + 1]
            rest_b = total[at + 1] - missing[at + 1]
            _unpack(body, tail, rest_b, rest_t, False, m, cb, scratch)
            _add_terms(n_l, d_l, m, u, scratch)
            _unpack(body, tail, rest_b, rest_t, True, m, cb, scratch)
            _add_terms(n_r, d_r, m, u, scratch)
        elif lay[1] == 1:
            body = left[at + 1]
            rest_b = total[at + 1] - missing[at + 1]
            for c in range(m):
                bw = float(body[c] & mask)
                a = float(body[c] >> cb) * u / bw if bw > 0.0 else 0.0
                n_l[c] = n_l[c] + a * (float(tail[c] >> cb) * u)
                d_l[c] = d_l[c] + a * a * float(tail[c] & mask)
            for c in range(m):
                b_r = rest_b - body[c]
                t_r = rest_t - tail[c]
                bw = float(b_r & mask)
                a = float(b_r >> cb) * u / bw if bw > 0.0 else 0.0
                n_r[c] = n_r[c] + a * (float(t_r >> cb) * u)
                d_r[c] = d_r[c] + a * a * float(t_r & mask)
        else:
            uw = unit_folds[k, 1]
            tail_w, body, body_w = left[at + 1], left[at + 2], left[at + 3]
            rest_tw = total[at + 1] - missing[at + 1]
            rest_b = total[at + 2] - missing[at + 2]
            rest_bw = total[at + 3] - missing[at + 3]
            for c in range(m):
                bw = float(body_w[c]) * uw
                a = float(body[c]) * u / bw if bw > 0.0 else 0.0
                n_l[c] = n_l[c] + a * (float(tail[c]) * u)
                d_l[c] = d_l[c] + a * a * (float(tail_w[c]) * uw)
            for c in range(m):
                bw = float(rest_bw - body_w[c]) * uw
                a = float(rest_b - body[c]) * u / bw if bw > 0.0 else 0.0
                n_r[c] = n_r[c] + a * (float(rest_t - tail[c]) * u)
                d_r[c] = d_r[c] + a * a * (float(rest_tw - tail_w[c]) * uw)


@njit(cache=True, error_model="numpy")
def _emit(work, m, n0, d0, total, missing, lay, unit_folds, var, out, at):
    """The changes of N and D of the candidates among the first ``m``
    columns of the work blocks whose ``keep`` flag is set, written to
    ``out`` = (dn, dd, var, pos) from index ``at``; returns the next index.
    Only the kept candidates' terms are formed: their columns are moved to
    the front of the left block first (each candidate's arithmetic is its
    own, so the numbers do not change)."""
    left, pos, keep, kept = work[0], work[7], work[8], work[10]
    n_l, d_l, n_r, d_r = work[3], work[4], work[5], work[6]
    n_kept = 0
    for c in range(m):
        if keep[c]:
            kept[n_kept] = c
            n_kept += 1
    if n_kept == 0:
        return at
    if n_kept < m:                  # the kept columns moved to the front (kept[q] >= q)
        for a in range(left.shape[0]):
            row = left[a]
            for q in range(n_kept):
                row[q] = row[kept[q]]
    n_m, d_m = terms_of(missing, lay, unit_folds)
    _terms_sides(left, n_kept, total, missing, lay, unit_folds, (n_l, d_l, n_r, d_r), work[9])
    out_dn, out_dd, out_var, out_pos = out
    for q in range(n_kept):
        out_dn[at] = -n0 + n_l[q] + n_r[q] + n_m
        out_dd[at] = -d0 + d_l[q] + d_r[q] + d_m
        out_var[at] = var
        out_pos[at] = pos[kept[q]]
        at += 1
    return at


@njit(cache=True, error_model="numpy")
def _continuous_block(hist, first, n_bins, total, missing, mono, min_obs, lay, unit_plain,
                      work):
    """Every bucket of one continuous predictor as a candidate in the work
    blocks (left: the buckets up to it; kept: it holds rows and the split is
    allowed); returns the number of buckets (``n_bins``: the others never
    hold rows)."""
    left, lc, rc, pos, keep = work[0], work[1], work[2], work[7], work[8]
    for a in range(total.shape[0]):         # bucket by bucket: a histogram row is contiguous
        left[a, 0] = hist[first, a]
    for b in range(1, n_bins):
        for a in range(total.shape[0]):
            left[a, b] = left[a, b - 1] + hist[first + b, a]
    _side_counts(left, n_bins, total, missing, lay, lc, rc)
    before = 0
    for b in range(n_bins):
        pos[b] = b
        keep[b] = lc[b] > before and _allowed(left, b, total, missing, lc[b], rc[b], mono,
                                              min_obs, lay, unit_plain)
        before = lc[b]
    return n_bins


@njit(cache=True, error_model="numpy")
def scan_work(n_columns, capacity):
    """The work blocks of :func:`scan_node` for ``capacity`` candidates of
    one predictor: left sums (column-major), the left and right row counts,
    the N and D of each side, positions, whether each is kept, the
    unpacked fold sums of :func:`_unpack` (int64 with float64 views, int32)
    and the kept candidates' columns."""
    bz = np.empty(capacity, dtype=np.int64)
    tz = np.empty(capacity, dtype=np.int64)
    unpacked = (bz, bz.view(np.float64), tz, tz.view(np.float64),
                np.empty(capacity, dtype=np.int32), np.empty(capacity, dtype=np.int32))
    return (np.empty((n_columns, capacity), dtype=np.int64),
            np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.int64),
            np.empty(capacity), np.empty(capacity), np.empty(capacity), np.empty(capacity),
            np.empty(capacity, dtype=np.int64), np.empty(capacity, dtype=np.bool_), unpacked,
            np.empty(capacity, dtype=np.int64))


@njit(cache=True, error_model="numpy")
def scan_node(hist, total, lay, units, data, min_obs, out, work):
    """Every allowed candidate of a node (histogram ``hist``, sums ``total``)
    in the reference's order: its change of N and D, predictor and
    position, written to ``out`` = (dn, dd, var, pos); returns their number.
    ``data`` = (cont, cat, width, cat_cells, cat_missing, var_monotone, buckets
    of each continuous predictor);
    ``work``: :func:`scan_work` blocks for the most candidates of a predictor."""
    cont, cat, width, cat_cells, cat_missing, var_monotone, n_bins = data
    unit_plain, unit_folds = units
    n0, d0 = terms_of(total, lay, unit_folds)
    left, lc, rc, pos, keep = work[0], work[1], work[2], work[7], work[8]
    at = 0
    for i in range(cont.shape[0]):
        first = i * width
        missing = hist[first + width - 1]
        m = _continuous_block(hist, first, n_bins[i], total, missing, var_monotone[cont[i]],
                              min_obs, lay, unit_plain, work)
        at = _emit(work, m, n0, d0, total, missing, lay, unit_folds, cont[i], out, at)
    for c in range(cat.shape[0]):
        order, n_occupied = level_order(hist, cat_cells[c], lay, unit_plain)
        missing = hist[cat_missing[c]]
        m = max(n_occupied - 1, 0)
        for q in range(m):
            cell = cat_cells[c, order[q]]
            for a in range(total.shape[0]):
                left[a, q] = hist[cell, a] if q == 0 else left[a, q - 1] + hist[cell, a]
        _side_counts(left, m, total, missing, lay, lc, rc)
        for q in range(m):
            pos[q] = q
            keep[q] = _allowed(left, q, total, missing, lc[q], rc[q], 0, min_obs, lay,
                               unit_plain)
        at = _emit(work, m, n0, d0, total, missing, lay, unit_folds, cat[c], out, at)
    return at
