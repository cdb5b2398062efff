"""Kernels for selecting sub-models, by concern: the leave-one-out estimates shared by
every search (:mod:`._common`), the nested model spaces (:mod:`.nested`), the wrapper
searches (:mod:`.wrapper`), classification with a selected structure (:mod:`.scoring`)
and subsumption resolution (:mod:`.subsumption`)."""

from ._common import (  # noqa: F401
    CountContext,
    GaussianScoring,
    LogTables,
    LooEstimate,
    Moves,
    NestedSpace,
    SelectedStructure,
    observed_totals,
)
from .nested import (  # noqa: F401
    LARGE_TABLE_BYTES,
    LARGE_TILE_BYTES,
    LARGE_TILE_ROWS,
    PREFETCH_BYTES,
    SCALE_BITS,
    TILE_BYTES,
    TILE_ROWS,
    child_scales,
    nested_loo_loss,
    nested_loo_loss_nominal,
    tile_size,
)
from .scoring import (  # noqa: F401
    selective_scores,
)
from .subsumption import (  # noqa: F401
    eager_subsumption,
    generalisation_graph,
    lazy_subsumption,
)
from .wrapper import (  # noqa: F401
    wrapper_loo_loss,
)
