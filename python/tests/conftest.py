import numpy as np
import pytest

import flotilla


@pytest.fixture
def people():
    return flotilla.from_pydict({
        "id": [1, 2, 3, 4, 5],
        "name": ["ann", "bob", "cy", "dee", None],
        "city": ["oslo", "rome", "oslo", None, "rome"],
        "score": [3.5, 1.0, None, 2.5, 4.0],
    })


@pytest.fixture
def random_frame():
    """A seeded table and the same data as a pandas DataFrame (the oracle)."""
    rng = np.random.default_rng(7)
    n = 5000
    data = {
        "k": rng.integers(0, 40, n),
        "g": rng.choice(["a", "b", "c", "d"], n).tolist(),
        "x": rng.normal(10, 3, n),
        "y": rng.integers(-1000, 1000, n),
    }
    import pandas as pd

    return flotilla.from_pydict(data), pd.DataFrame(data)
