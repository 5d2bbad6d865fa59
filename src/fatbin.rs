//! A safe parser of nvcc's fatbinary wrapper and container (see DESIGN.md).
