//! `weather`: simulated MCP server (being written).
