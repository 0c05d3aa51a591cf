#!/usr/bin/env python3
"""The keyword-spotting test's inputs: float32 [1, 1, 49, 10] (49 frames of 10 MFCC
features), 30 * sin(t * k / 7 + f * k) for k = 1, 2, 3: three patterns the model
classifies differently. Run by hand (numpy 1.24 made the committed files)."""
import numpy as np
import os
here = os.path.dirname(os.path.abspath(__file__))
t = np.arange(49)[:, None]
f = np.arange(10)[None, :]
for k in (1, 2, 3):
    np.save(os.path.join(here, 'input%d.npy' % k), (30 * np.sin(t * k / 7.0 + f * k)).astype(np.float32).reshape(1, 1, 49, 10))
