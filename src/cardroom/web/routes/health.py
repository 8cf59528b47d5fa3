"""``GET /healthz``: whether this process can serve, for a load balancer or an operator:
its database answers, its heartbeat and (on PostgreSQL) its listener work, and each chemin
de fer table is driven by some process.  It names no person and changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from cardroom.storage.errors import StorageError
from cardroom.web import models
from cardroom.web.deps import services
from cardroom.web.models import NOBODY

router = APIRouter(tags=["health"])


def _database_answers(svc: Any) -> None:
    """A statement on a connection of the pool (a :class:`StorageError` if none comes)."""
    db = svc.wallet.db
    with db.translating(), db.read() as conn:
        conn.execute(text("SELECT 1"))


@router.get(
    "/healthz",
    response_model=models.Health,
    operation_id="health",
    responses={503: {"model": models.Health, "description": "the database does not answer"}},
    openapi_extra=NOBODY,
)
async def health(request: Request) -> JSONResponse:
    """Whether this process serves (200, ``ok`` or ``degraded`` with what is wrong) or
    cannot (503: the database does not answer)."""
    svc = services(request)
    try:
        await asyncio.to_thread(_database_answers, svc)
        chemmy = await svc.chemmy.health()
    except StorageError as err:
        failing = {"status": "failing", "database": {"ok": False, "error": str(err)}}
        return JSONResponse({**failing, "chemin_de_fer": None}, status_code=503)
    listener = chemmy["listener"]
    degraded = (
        chemmy["heartbeat"]["failures"] > 0
        or chemmy["heartbeat"]["last"] is None
        or (listener is not None and not listener["listening"])
        or any(table["lease"] == "none" for table in chemmy["tables"])
    )
    return JSONResponse(
        {
            "status": "degraded" if degraded else "ok",
            "database": {"ok": True, "error": None},
            "chemin_de_fer": chemmy,
        }
    )
