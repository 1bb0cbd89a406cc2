"""Cold start, pygbm side: what a user's fresh process does, timed whole by run.py
(``--suite cold``): ``python cold_start.py boston.csv n_trees out.json``.

Imports pygbm, reads boston with pandas and fits it (gaussian, interaction depth 3,
shrinkage 0.01, bag fraction 0.5: the R twin cold_start.R makes the same call);
writes the seconds of the three steps to out.json.
"""
import time

T_START = time.perf_counter()
import pygbm  # noqa: E402

T_IMPORTED = time.perf_counter()
import json  # noqa: E402
import sys  # noqa: E402

import pandas as pd  # noqa: E402

data_csv, n_trees, out_json = sys.argv[1], int(sys.argv[2]), sys.argv[3]
boston = pd.read_csv(data_csv)
T_READ = time.perf_counter()
pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=n_trees, interaction_depth=3,
          shrinkage=0.01, bag_fraction=0.5, random_state=1)
T_FITTED = time.perf_counter()
with open(out_json, "w") as fh:
    json.dump({"status": "ok", "note": "", "import_s": T_IMPORTED - T_START,
               "read_s": T_READ - T_IMPORTED, "fit_s": T_FITTED - T_READ}, fh)
