"""Best-first growth on the ordered split score (the NumPy reference; the
compiled grower, :mod:`.compiled.grower`, grows the same trees).

The tree's score is N / sqrt(D) summed over its terminal nodes
(:mod:`.search`). ``interaction_depth`` times, the (terminal node,
candidate) pair that gives the largest new score is split, only if the
score increases (ties: the lowest terminal index, then the first
candidate). The children are numbered as R's grower numbers them
(:class:`pygbm.engine.grow.TreeGrower`: the left child keeps its parent's
terminal index), so the grown tree is an ordinary
:class:`~pygbm.engine.grow.GrownTree`: its leaves are fitted, adjusted and
stored as any other.
"""
from __future__ import annotations

import numpy as np

from ..engine.grow import GrownTree, Node, _directions
from ..engine.split import LEFT, MISSING, RIGHT
from .columns import FoldColumns
from .search import OrderedSearch, tree_score


class OrderedGrower:
    """Grows one tree of ``depth`` splits on binned ``data`` with the fold
    columns ``folds`` of the iteration's permutation (a grower of the
    loop: ``grow(z, w, inbag, unit_weights)``, ``z`` the plain working
    response the nodes' predictions and R's improvements are read from)."""

    def __init__(self, data, folds: FoldColumns, depth: int, min_obs: int):
        self.data = data
        self.folds = folds
        self.depth = int(depth)
        self.min_obs = int(min_obs)

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> GrownTree:
        data = self.data
        search = OrderedSearch(data, self.folds, z, w, inbag, unit_weights, self.min_obs)
        rows = inbag.nonzero()[0]
        root = search.histogram(rows)
        total = search.node_total(root)
        n_sum, d_sum = (float(v) for v in search.terms(total))
        tz, tw, tn = (v.item() for v in search.plain(total))
        nodes = [Node(tz / tw if tw > 0 else 0.0, tw, int(tn))]
        terminals = [0]
        rows_of = [np.arange(data.n)]       # training rows of each terminal node
        bag_of = [rows]                     # in-bag rows of each terminal node
        totals, hists, cands = [total], [root], [None]
        node_of = np.zeros(data.n, dtype=np.intp)
        vars_used = []
        for _ in range(self.depth):
            for t, cand in enumerate(cands):
                if cand is None:
                    cands[t] = search.candidates(hists[t], totals[t])
            best, where = tree_score(n_sum, d_sum), None
            for t, cand in enumerate(cands):
                if cand.dn.shape[0] == 0:
                    continue
                den = d_sum + cand.dd
                with np.errstate(divide="ignore", invalid="ignore"):
                    s = np.where(den > 0.0, (n_sum + cand.dn) / np.sqrt(den), 0.0)
                s[np.isnan(s)] = -np.inf            # never chosen (the compiled loop's >)
                c = int(np.argmax(s))
                if s[c] > best:
                    best, where = float(s[c]), (t, c)
            if where is None:
                break
            t, c = where
            cand = cands[t]
            split = search.split(hists[t], totals[t], cand, c)
            n_sum += float(cand.dn[c])
            d_sum += float(cand.dd[c])
            left = cand.left[c]
            miss = cand.missing[c]
            sums = (left, totals[t] - left - miss, miss)
            ids = []
            for side in (split.left, split.right, split.missing):
                # as R's grower: an empty missing child starts with its parent's sums
                nodes.append(Node(side.sum_z / side.w if side.w > 0 else 0.0, side.w, side.n))
                ids.append(len(nodes) - 1)
            parent = nodes[terminals[t]]
            parent.split, parent.children = split, tuple(ids)
            vars_used.append(split.var)
            t_right, t_missing = len(terminals), len(terminals) + 1
            terminals[t] = ids[LEFT]
            terminals.extend([ids[RIGHT], ids[MISSING]])
            d = _directions(data, split, rows_of[t])
            kids = [rows_of[t].compress(d == side) for side in (LEFT, RIGHT, MISSING)]
            node_of[kids[RIGHT]] = t_right
            node_of[kids[MISSING]] = t_missing
            rows_of[t] = kids[LEFT]
            rows_of.extend(kids[1:])
            d_bag = _directions(data, split, bag_of[t])
            bags = [bag_of[t].compress(d_bag == side) for side in (LEFT, RIGHT, MISSING)]
            kid_hists = _child_histograms(search, hists[t], bags)
            bag_of[t] = bags[LEFT]
            bag_of.extend(bags[1:])
            hists[t] = kid_hists[LEFT]
            hists.extend(kid_hists[1:])
            totals[t] = sums[LEFT]
            totals.extend(sums[1:])
            cands[t] = None
            cands.extend([None, None])
        return GrownTree(nodes, terminals, node_of, vars_used)


def _child_histograms(search: OrderedSearch, parent: np.ndarray, bags) -> list:
    """The children's histograms: counted for all but the largest child,
    whose histogram is the parent's minus the others' (exact: integers)."""
    largest = int(np.argmax([b.shape[0] for b in bags]))
    hists = [None if i == largest else search.histogram(b) for i, b in enumerate(bags)]
    rest = parent.copy()
    for i, h in enumerate(hists):
        if i != largest:
            rest -= h
    hists[largest] = rest
    return hists
